import type { ClusterScenario } from '../cluster-scenario.ts';
import { GATEWAY_DEPLOYMENT, scenarioManifests } from '../scenario-manifests.ts';

/**
 * Envoy Gateway's EnvoyShutdown (envoyproxy/gateway test/e2e/tests/envoy_shutdown.go): fortio at
 * 5000 QPS over 50 connections (`runLoadAndWait` in its test utils: fortio's library, keep-alive on,
 * a 3 s timeout per request) while the proxy's Deployment rolls; it passes when every response is a
 * 200. Ours rolls the harness's ingress gateway (pilot-agent and Envoy, one replica, rolled with
 * maxSurge 1: the new pod Ready before the old one is told to stop) with the load entering through
 * the gateway's Service, so the drain measured is pilot-agent's and Envoy's, and the handover
 * kube-proxy's. On two cores the 5000 QPS is a ceiling fortio may not reach; the row records what it
 * did reach.
 */
export const gatewayRollout: ClusterScenario = {
  name: 'gateway-rollout',
  requires: [{ capability: 'gatewayRollout' }],
  summary:
    "the ingress gateway's Deployment rolled under 5000 QPS over 50 connections (Envoy Gateway's EnvoyShutdown)",
  source: 'envoyproxy/gateway test/e2e/tests/envoy_shutdown.go EnvoyShutdown',
  // --exit-on-zero-active-connections: on the gateway's own pilot-agent, the one this fault stops.
  manifests: (p) =>
    scenarioManifests(p, { gateway: { exitOnZeroActiveConnections: p.arms.exitOnZeroActiveConnections } }),
  fault: { kind: 'rollout-restart', target: GATEWAY_DEPLOYMENT },
  // "All requests must succeed".
  defaultMaxFailed: 0,
  defaults: { qps: 5000, connections: 50, timeoutS: 3, durationS: 30 },
};
