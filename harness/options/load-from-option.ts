// --load-from: where the load generator runs. On kind the default is a pod in the cluster, outside
// the mesh, calling the gateway's ClusterIP (ASM's client ran inside the cluster); the host path
// (docker-proxy and a NodePort) stays for comparison. The row says which ran (ingress_path).
import { providerOf } from '../../clusters/registry.ts';
import type { BackendName } from '../../clusters/registry.ts';
import { badInput } from '../../lib/index.ts';
import type { GeneratorChoice } from '../provision/index.ts';
import { paramOption } from './option.ts';
import { choiceParser } from './parse-values.ts';

export type LoadFrom = 'cluster' | 'host';

/** The default where the flag is not given: in the cluster when the backend can run it there. */
export function defaultLoadFrom(backend: BackendName): LoadFrom {
  return providerOf(backend).capabilities.has('loadInCluster') ? 'cluster' : 'host';
}

export const loadFromOption = paramOption<
  LoadFrom | undefined,
  LoadFrom,
  { backend: BackendName; generator: GeneratorChoice }
>({
  key: 'load-from',
  arg: '<where>',
  description: "cluster | host: where the load generator runs (kind's default: cluster; local: host only)",
  detail:
    "cluster: a fortio pod outside the mesh calling the gateway's ClusterIP, as ASM ran it; host: a process on this host (on kind through docker-proxy and the gateway's NodePort)",
  parse: choiceParser('--load-from', ['cluster', 'host'] as const),
  reads: ['backend', 'generator'],
  toParam: (value, c) => {
    // The pod runs fortio (its image holds fortio only); k6 stays on the host.
    if (value === 'cluster' && c.params.generator === 'k6')
      throw badInput(
        '--load-from',
        'host with --generator k6',
        value,
        'the pod runs fortio: use --generator fortio',
      );
    if (c.params.generator === 'k6') {
      if (!providerOf(c.params.backend).capabilities.has('hostIngress'))
        throw badInput(
          '--generator',
          `fortio with --backend ${c.params.backend}`,
          'k6',
          "k6 runs on this host and this backend's gateway is reached from inside the cluster: use --generator fortio",
        );
      return 'host';
    }
    return value ?? defaultLoadFrom(c.params.backend);
  },
  requires: (value) =>
    value === 'cluster'
      ? { capability: 'loadInCluster', value, why: 'use --load-from host' }
      : value === 'host' && { capability: 'hostIngress', value, why: 'use --load-from cluster' },
});
