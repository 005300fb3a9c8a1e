import { ensureDebianTool } from './ensure-debian-tool.ts';

/**
 * iptables (istio-cni's in-pod rules, --ztunnel-impl istio-shared) and tcpdump (the HBONE closes on
 * the wire at each deadline, with pods in namespaces): where they cannot be had, a note, not a
 * failure: runs without them refuse istio-shared (exit 2) or leave the wire columns empty.
 */
export async function ensureNetnsTools(write: (t: string) => void = () => undefined): Promise<string[]> {
  const found: string[] = [];
  for (const [command, pkg, why] of [
    ['iptables-restore', 'iptables', "for istio-cni's in-pod capture (--ztunnel-impl istio-shared)"],
    ['tcpdump', 'tcpdump', 'to record the HBONE closes at each drain deadline (pods in namespaces)'],
  ] as const) {
    try {
      found.push(
        `${command} at ${await ensureDebianTool({ commands: [command], packages: [pkg], why, write })}`,
      );
    } catch (err) {
      found.push(`${command}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return found;
}
