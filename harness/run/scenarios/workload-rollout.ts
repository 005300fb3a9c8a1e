import type { ClusterScenario } from '../cluster-scenario.ts';
import { HTTPBIN_DEPLOYMENT, scenarioManifests } from '../scenario-manifests.ts';

/**
 * E2 (seed 002): the Istio 1.28 report. A mesh-aware gateway (HBONE) in front of httpbin; a
 * `rollout restart deploy/httpbin` mid-run. The report's complaint is any 503, so the verdict fails
 * on the first failed request (expected with ambient; --mesh off is the control arm). Seed 003's
 * drain strategies (E5) run this same scenario with --drain-strategy.
 */
export const workloadRollout: ClusterScenario = {
  name: 'workload-rollout',
  // istio beside each pod serves the pods' rollout; istio/ztunnel as the DaemonSet learns the rolled
  // pods over delta ADS (clusters/local/istio-shared-ztunnel.ts).
  ztunnelImpls: ['istio', 'istio-shared'],
  summary:
    'httpbin Deployment rollout restart under load through a mesh-aware gateway (Istio 1.28, seed 002)',
  source: 'E2, seed 002 (istio/istio#58514)',
  manifests: (p) => scenarioManifests(p),
  fault: { kind: 'rollout-restart', target: HTTPBIN_DEPLOYMENT },
  defaultMaxFailed: 0,
  defaults: { qps: 50, durationS: 30, gatewayMode: 'hbone' },
};
