import type { ClusterScenario, LoadShape, ScenarioDefaults } from '../cluster-scenario.ts';
import {
  HTTPBIN_DEPLOYMENT,
  NEEDS_IN_POD_ZTUNNEL,
  ZTUNNEL_DAEMONSET,
  scenarioManifests,
} from '../scenario-manifests.ts';

// Istio's own ambient restart tests (istio/istio tests/integration/ambient/baseline_test.go,
// TestServiceRestart and TestZtunnelRestart) as experiments: their traffic and their thresholds.
//
// Their traffic (pkg/test/framework/components/echo/util/traffic/generator.go): one caller per
// source, closed-loop and sequential (a timer reset after each call returns), `GET /?delay=10ms`,
// one call, no retry, a 5 s timeout (pkg/test/echo/common/util.go DefaultRequestTimeout), HTTP/1
// without keep-alive (pkg/test/echo/server/forwarder/http.go). Ours: fortio with one connection at
// the interval's rate, `-keepalive=false`, `-nocatchup`, to go-httpbin's `/delay/0.01` (its spelling
// of a 10 ms delay). The one difference: fortio starts a call every interval where Istio's generator
// waits the interval after each return (so Istio's calls are the interval plus a call's time apart,
// about 50 ms instead of 40); with -nocatchup a slow call makes fortio skip slots, never burst.
//
// Their sources: an uncaptured pod, a sidecar pod and a pod behind a waypoint. Ours is the gateway:
// `--gateway-mode plain` is the uncaptured caller (plaintext to the pod, captured by its ztunnel),
// `--gateway-mode hbone` the mesh caller whose Envoy pools HBONE connections as the sidecar source's
// does (the one the ztunnel test judges lighter, envoy#34897). Keep-alive off is the client's leg;
// the gateway's Envoy pools its upstream connections either way, as Istio's sidecar source does. No
// waypoint: our control plane programs none. Unlike Istio's generator, every call keeps its time and
// class, so each failure is placed against the lifecycle events as in the other scenarios.

/** Istio's call, as go-httpbin spells it: `/?delay=10ms` is echo's, `/delay/0.01` go-httpbin's. */
const ISTIO_CALL: ScenarioDefaults = { connections: 1, timeoutS: 5, path: '/delay/0.01' };
/** Keep-alive off (echo's forwarder), and no catching up after a slow call (a closed loop). */
const ISTIO_LOAD_SHAPE: LoadShape = { newConnectionPerRequest: true, noCatchUp: true };

/**
 * TestServiceRestart (L3740-3811): the destination's Deployment rollout-restarted under a call every
 * 40 ms; passes at a success rate of 1.0 (0.9 on Calico, istio/istio#52719). Istio's echo server
 * keeps serving 1 s after SIGTERM, each request restarting that second: `--app-shutdown echo`.
 * Istio's destination is two Deployments of one pod; ours one Deployment of two, rolled one at a time.
 */
export const istioServiceRestart: ClusterScenario = {
  name: 'istio-service-restart',
  ztunnelImpls: ['istio', 'istio-shared'],
  summary:
    "Istio's TestServiceRestart: a call every 40 ms, keep-alive off, while the destination rolls; pass at 100 % success",
  source: 'istio/istio tests/integration/ambient/baseline_test.go TestServiceRestart',
  manifests: (p) => scenarioManifests(p),
  fault: { kind: 'rollout-restart', target: HTTPBIN_DEPLOYMENT },
  defaultThresholds: ['success_rate>=1'],
  loadShape: ISTIO_LOAD_SHAPE,
  defaults: { ...ISTIO_CALL, qps: 25, durationS: 30, replicas: 2, gatewayMode: 'hbone' },
};

/**
 * TestZtunnelRestart (L3813-3860): the ztunnel DaemonSet rollout-restarted under a call every 50 ms;
 * passes at a success rate of 0.9 for every source (`TODO(#51952) make this 1.0`).
 */
export const istioZtunnelRestart: ClusterScenario = {
  name: 'istio-ztunnel-restart',
  ztunnelImpls: ['istio-shared'],
  requires: [{ capability: 'inPodZtunnel', why: NEEDS_IN_POD_ZTUNNEL }],
  summary:
    "Istio's TestZtunnelRestart: a call every 50 ms, keep-alive off, while ztunnel's DaemonSet rolls; pass at 90 % success",
  source: 'istio/istio tests/integration/ambient/baseline_test.go TestZtunnelRestart',
  manifests: (p) => scenarioManifests(p),
  fault: { kind: 'rollout-restart', target: ZTUNNEL_DAEMONSET },
  defaultThresholds: ['success_rate>=0.9'],
  loadShape: ISTIO_LOAD_SHAPE,
  defaults: { ...ISTIO_CALL, qps: 20, gatewayMode: 'hbone' },
};
