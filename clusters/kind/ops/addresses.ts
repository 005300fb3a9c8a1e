import type { ClusterAddresses } from '../../backend.ts';
import { kindAddresses } from '../kind-addresses.ts';
import type { KindRun } from '../kind-run.ts';
import { need, ours, workloadOf } from '../kind-workloads.ts';
import { isRolledOut } from '../rollout-predicate.ts';

/** Where things are, from the watches; the ingress on 127.0.0.1 once the gateway has rolled out. */
export function addressesOf(run: KindRun): ClusterAddresses {
  const gateway = workloadOf(run, run.scope.gateway);
  const isGatewayReady = gateway !== undefined && isRolledOut(gateway, 'Deployment');
  return kindAddresses({
    watch: need(run).watch,
    ours: (list) => ours(run, list),
    ingress: isGatewayReady ? `127.0.0.1:${String(run.settings.ingressHostPort)}` : undefined,
    pidsOf: (uid) => run.podPids.of(uid),
  });
}
