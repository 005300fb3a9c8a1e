import { buildMeshManifests, IMAGES } from '../../clusters/manifests/index.ts';
import type {
  ClusterObject,
  GatewayManifestOptions,
  HttpbinManifestOptions,
} from '../../clusters/manifests/index.ts';
import { providerOf } from '../../clusters/registry.ts';
import { GO_HTTPBIN_READ_TIMEOUT_MS } from '../../apps/go-httpbin.ts';
import { armEnv, DEFAULT_ARMS } from '../options/arms.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';

/** What the scenarios' faults hit. */
export const ZTUNNEL_DAEMONSET = { kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' } as const;
export const HTTPBIN_DEPLOYMENT = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;
export const GATEWAY_DEPLOYMENT = {
  kind: 'Deployment',
  namespace: 'istio-system',
  name: 'istio-ingressgateway',
} as const;

/** Why an out-of-mesh (plain) gateway in front of ambient pods needs ztunnel in the pods. */
export const NEEDS_IN_POD_CAPTURE =
  'its plaintext from an out-of-mesh gateway reaches ztunnel only through in-pod capture; without it the traffic would bypass ztunnel and measure nothing';

/** Why the ztunnel upgrade's scenarios need ztunnel in the pods. */
export const NEEDS_IN_POD_ZTUNNEL =
  "the upgrade hands each pod's listeners from the old ztunnel to the new one inside the pod's network namespace (SO_REUSEPORT), which is what it measures";

/**
 * The workload's environment: the fault server's shutdown for --app-shutdown echo, and the idle close
 * for --app-idle-timeout in each program's own setting (go-httpbin's SRV_READ_TIMEOUT, the fault
 * server's IDLE_TIMEOUT_MS); none at the defaults.
 */
function appEnv(p: ExperimentParams): Record<string, string> {
  const idle = p.appIdleTimeoutS * 1000 !== GO_HTTPBIN_READ_TIMEOUT_MS;
  if (p.appShutdown === 'echo')
    return { SHUTDOWN: 'echo', ...(idle ? { IDLE_TIMEOUT_MS: String(p.appIdleTimeoutS * 1000) } : {}) };
  return idle ? { SRV_READ_TIMEOUT: `${String(p.appIdleTimeoutS)}s` } : {};
}

/**
 * The standard topology (ztunnel DaemonSet, httpbin, gateway) with the run's parameters and
 * mitigation arms applied where each one lives: preStop on httpbin, retries and connection limits on
 * the gateway, the drain strategy on ztunnel.
 */
export function scenarioManifests(
  p: ExperimentParams,
  options: { httpbin?: Partial<HttpbinManifestOptions>; gateway?: Partial<GatewayManifestOptions> } = {},
): ClusterObject[] {
  const { arms } = p;
  const env = appEnv(p);
  // The backend's part (local: ztunnel in the pods' network; kind: on the node's address, the
  // gateway on a NodePort).
  const profile = providerOf(p.backend).manifestProfile;
  return buildMeshManifests({
    ztunnel: {
      graceS: p.graceS,
      update: p.ztunnelUpdate,
      // The arms ztunnel reads from its environment (harness/options/arms.ts, each arm's `env`).
      env: armEnv(arms, 'ztunnel'),
      ...profile.ztunnel,
      // kind's node-address mode, asked for by name.
      ...(p.ztunnelMode === 'node-address' ? { inPod: false, podNetnsByPath: false } : {}),
    },
    ...(p.meshClientRps > 0
      ? { client: { rps: p.meshClientRps, ...(p.podNetwork === 'netns' ? { ownNetns: true } : {}) } }
      : {}),
    httpbin: {
      replicas: p.replicas,
      mesh: p.mesh,
      ...(arms.preStopSleepS > 0 ? { preStopSleepS: arms.preStopSleepS } : {}),
      ...(p.ztunnelImpl === 'istio' ? { dedicatedZtunnel: true, graceS: p.graceS } : {}),
      ...(p.podNetwork === 'netns' ? { ownNetns: true } : {}),
      // Istio's echo server's shutdown: the fault server, which runs it with SHUTDOWN=echo.
      ...(Object.keys(env).length > 0 ? { env } : {}),
      ...(p.appShutdown === 'echo' ? { image: IMAGES.faultServer } : {}),
      ...options.httpbin,
    },
    gateway: {
      mode: p.gatewayMode,
      concurrency: p.gatewayConcurrency,
      ...profile.gateway,
      ...(arms.retryOn !== DEFAULT_ARMS.retryOn ? { retryOn: arms.retryOn } : {}),
      ...(arms.maxConnectionDurationS > 0 ? { maxConnectionDurationS: arms.maxConnectionDurationS } : {}),
      ...(arms.hboneIdleTimeoutS > 0 ? { hboneIdleTimeoutS: arms.hboneIdleTimeoutS } : {}),
      ...(arms.upstreamIdleTimeoutS > 0 ? { upstreamIdleTimeoutS: arms.upstreamIdleTimeoutS } : {}),
      ...options.gateway,
    },
  });
}
