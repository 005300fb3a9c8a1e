// A pod's IPv4 address read from inside its network namespace, for a pod istio-cni hands over by
// ZDS (an AddWorkload names the pod and passes its namespace; its address is not in the message).
// Upstream ztunnel binds its in-pod listeners on the wildcard address and needs none; ours binds the
// pod's address and waits for discovery to know it (inbound/hbone-inbound.ts), so it reads it here:
// the namespace's one non-loopback IPv4 address, which the primary CNI plugin has set up before
// istio-cni's plugin runs (a chained plugin, after it).
import { execa } from 'execa';

const SCRIPT =
  "const a=Object.values(require('os').networkInterfaces()).flat().filter(i=>i.family==='IPv4'&&!i.internal).map(i=>i.address);process.stdout.write(JSON.stringify(a))";

/** A helper that has not answered by then is stuck (a namespace that is gone, a tool missing). */
const HELPER_TIMEOUT_MS = 10_000;

export async function ipv4InNetns(netnsPath: string): Promise<string> {
  const out = await execa(
    'setpriv',
    ['--pdeathsig', 'KILL', 'nsenter', `--net=${netnsPath}`, '--', process.execPath, '-e', SCRIPT],
    { reject: false, timeout: HELPER_TIMEOUT_MS },
  );
  if (out.exitCode !== 0)
    throw new Error(
      `cannot read the addresses in ${netnsPath}: ${out.stderr.trim() || `exit ${String(out.exitCode)}`}`,
    );
  const addresses = JSON.parse(out.stdout || '[]') as string[];
  const [only, ...more] = addresses;
  if (!only || more.length > 0)
    throw new Error(`expected one IPv4 address in ${netnsPath}, got ${JSON.stringify(addresses)}`);
  return only;
}
