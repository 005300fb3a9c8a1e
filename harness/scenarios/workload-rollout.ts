import { buildMeshManifests } from '../../clusters/manifests/index.ts';
import type { ClusterScenario } from '../experiment/cluster-scenario.ts';

/**
 * E2 (seed 002): the Istio 1.28 report. A mesh-aware gateway (HBONE) in front of httpbin; a
 * `rollout restart deploy/httpbin` mid-run. The report's complaint is any 503, so the verdict fails
 * on the first failed request (expected with ambient; --mesh off is the control arm).
 */
export const workloadRollout: ClusterScenario = {
  name: 'workload-rollout',
  summary:
    'httpbin Deployment rollout restart under load through a mesh-aware gateway (Istio 1.28, seed 002)',
  manifests: (p) =>
    buildMeshManifests({
      ztunnel: { graceS: p.graceS },
      httpbin: { replicas: p.replicas, mesh: p.mesh },
      gateway: { mode: 'hbone' },
    }),
  restartTarget: { kind: 'Deployment', namespace: 'default', name: 'httpbin' },
  defaultMaxFailed: 0,
};
