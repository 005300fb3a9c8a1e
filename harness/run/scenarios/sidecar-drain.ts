import { badInput } from '../../../lib/index.ts';
import type { ClusterScenario } from '../cluster-scenario.ts';
import { HTTPBIN_DEPLOYMENT, scenarioManifests } from '../scenario-manifests.ts';

/**
 * E4 (seed 004): one `/delay/10` request through the gateway to a sidecar-mode httpbin, then the
 * Deployment is scaled to 0. pilot-agent's default drain exits after terminationDrainDuration (5 s)
 * and the request fails; with --exit-on-zero-active-connections the proxy waits and it gets 200;
 * with a grace period shorter than the request (--grace 8) SIGKILL ends it either way.
 * The load is exactly one request (fortio `-n 1`, which makes no warm-up call; k6 one iteration),
 * as the document's `curl -I .../delay/10 & kubectl scale ... --replicas=0`.
 */
export const sidecarDrain: ClusterScenario = {
  name: 'sidecar-drain',
  requires: [{ capability: 'sidecarBesideApp' }],
  refuses: (p) =>
    p.podNetwork === 'netns' && p.ztunnelImpl === 'ours'
      ? badInput(
          '--netns',
          'not set with --scenario sidecar-drain',
          'set',
          "the sidecar and its app would share the pod's namespace and its ports; that pod layout is not built: leave --netns off",
        )
      : undefined,
  summary: 'a /delay/10 request in flight to a sidecar pod while its Deployment scales to 0 (seed 004)',
  source: 'E4, seed 004 (EXIT_ON_ZERO_ACTIVE_CONNECTIONS)',
  manifests: (p) =>
    scenarioManifests(
      { ...p, mesh: 'off', gatewayMode: 'plain' },
      {
        httpbin: {
          graceS: p.graceS,
          sidecar: { exitOnZeroActiveConnections: p.arms.exitOnZeroActiveConnections },
        },
      },
    ),
  fault: {
    kind: 'scale',
    target: HTTPBIN_DEPLOYMENT,
    replicas: 0,
  },
  defaultMaxFailed: 0,
  loadShape: { exactCalls: 1 },
  defaults: {
    qps: 0,
    connections: 1,
    durationS: 2,
    timeoutS: 30,
    path: '/delay/10',
    replicas: 1,
    restartAtS: 1,
  },
};
