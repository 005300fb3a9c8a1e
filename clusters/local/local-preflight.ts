// What the local cluster needs from this machine, checked before anything starts (exit 2 saying what to
// do): its loopback block, network namespaces (--netns, --ztunnel-impl istio and istio-shared), Go for
// the ZDS relay and iptables for the in-pod capture (istio-shared), cpu cgroups (--cpu-isolation).
import { badInput } from '../../lib/index.ts';
import { findOnPath, isExecutable } from '../../lib/install/index.ts';
import { zdsRelayPath } from '../../mesh/zds/index.ts';
import { inpodCaptureUnavailable } from '../../mesh/node-agent/inpod-capture.ts';
import { netnsUnavailable } from '../netns/network-world.ts';
import type { AddressPool } from './address-pool.ts';
import { checkLoopbackBlock } from './address-pool.ts';
import { cpuIsolationUnavailable } from './cpu-cgroups.ts';
import type { CpuIsolation } from './cpu-cgroups.ts';

export async function checkLocalPreflight({
  addresses,
  options,
  cpuIsolation,
}: {
  addresses: AddressPool;
  /** The local backend's options that need something of the machine (LocalBackendOptions'). */
  options: { netns?: boolean; istioShared?: { binary: string } };
  cpuIsolation: CpuIsolation;
}): Promise<void> {
  await checkLoopbackBlock(addresses);
  const why = options.netns ? await netnsUnavailable() : undefined;
  if (why)
    throw badInput(
      'pods in network namespaces of their own (--netns, --ztunnel-impl istio or istio-shared)',
      'possible here',
      why,
      'run as root on Linux with iproute2 and util-linux, or leave those flags off',
    );
  // The ZDS relay is built on first use from our Go source (mesh/zds/relay-binary.ts).
  if (options.istioShared && !(await isExecutable(zdsRelayPath())) && !(await findOnPath('go', process.env)))
    throw badInput(
      '--ztunnel-impl istio-shared',
      'possible here',
      'no Go on PATH',
      'its node agent needs zds-relay, built from this repository with Go >= 1.22: install Go and run again',
    );
  // istio-cni's in-pod rules in each meshed pod's namespace (clusters/netns/inpod-capture.ts).
  const captureWhy = options.istioShared ? await inpodCaptureUnavailable() : undefined;
  if (captureWhy)
    throw badInput(
      '--ztunnel-impl istio-shared',
      'possible here',
      captureWhy,
      "its pods' traffic reaches istio/ztunnel through istio-cni's in-pod iptables rules: install iptables (apt-get install iptables) and run again",
    );
  const cgroupsWhy = await cpuIsolationUnavailable(cpuIsolation);
  if (cgroupsWhy)
    throw badInput(
      '--cpu-isolation',
      'possible here',
      cpuIsolation,
      `${cgroupsWhy}; run as root with cgroup v1's cpu (and for nodes-pinned cpuset) controller mounted writable under /sys/fs/cgroup, or use --cpu-isolation none`,
    );
}
