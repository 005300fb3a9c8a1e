import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths.ts';
import { GO_HTTPBIN, pinnedEnvoyPath, pinnedToolPath } from '../../lib/install/index.ts';
import { DRAIN_DEADLINE_REACHED } from '../../ztunnel/telemetry/log-messages.ts';
import type { LifecycleEventKind } from '../events.ts';
import type { PodRecord } from './cluster-state.ts';
import { IMAGES } from '../manifests/index.ts';

export interface LocalImage {
  /** The TypeScript entrypoint run on Node 24, relative to the repository root. */
  entrypoint: string;
  /** A program run as it is instead (a binary the user brings); `entrypoint` is then unused. */
  binary?: string;
  /** Environment made from the pod itself (what a real cluster gives through config or xDS). */
  podEnv?: (pod: PodRecord, tools: LocalTools) => Record<string, string>;
  /**
   * The stdout line that marks the container as started. It stands in for a compiled binary's
   * near-instant start plus the kubelet noticing it (PLEG relist, up to 1 s), without charging
   * Node's ~200 ms boot to the model: ztunnel once its ZDS snapshot is applied, httpbin once listening.
   */
  startedPattern: RegExp;
  /**
   * The started line comes before the program listens (go-httpbin): started once its first declared
   * port also accepts a connection.
   */
  logsBeforeListening?: boolean;
  /**
   * Log lines that are lifecycle events (observed, not predicted): ztunnel's drain deadline.
   * `oncePerContainer`: only the first matching line is the event (istio/ztunnel in shared mode logs
   * its deadline once per workload proxy, all at the same instant: one deadline of the instance).
   */
  logEvents?: { pattern: RegExp; kind: LifecycleEventKind; oncePerContainer?: boolean }[];
}

/** Programs the local images run that the harness provisions (`npm run tools`). */
export interface LocalTools {
  /** Envoy 1.40 for the proxy image: ensureEnvoy's answer (the pinned copy, or a fitting one on PATH). */
  envoyBinary: string;
}

/** The pinned copies in the tools folder: what a backend created without a run plan uses. */
export const DEFAULT_LOCAL_TOOLS: LocalTools = { envoyBinary: pinnedEnvoyPath() };

/** Image (without tag) -> what the local backend runs for it. */
const LOCAL_IMAGES = new Map<string, LocalImage>([
  [
    IMAGES.ztunnel.replace(/:[^/:]+$/, ''),
    {
      entrypoint: 'ztunnel/main.ts',
      startedPattern: /\bztunnel\s+ready\b/,
      logEvents: [{ pattern: new RegExp(String.raw`\b${DRAIN_DEADLINE_REACHED}\b`), kind: 'drain-deadline' }],
    },
  ],
  [
    // istio/proxyv2: pilot-agent (ours, TypeScript) running the real Envoy (`npm run tools`).
    IMAGES.proxy.replace(/:[^/:]+$/, ''),
    {
      entrypoint: 'mesh/pilot-agent/main.ts',
      startedPattern: /\bpilot-agent started Envoy\b/,
      podEnv: (_pod, tools) => ({ ENVOY_BINARY: tools.envoyBinary }),
    },
  ],
  [
    IMAGES.client.replace(/:[^/:]+$/, ''),
    { entrypoint: 'apps/client/main.ts', startedPattern: /\bclient started\b/ },
  ],
  [
    IMAGES.httpbin.replace(/:[^/:]+$/, ''),
    {
      entrypoint: '',
      // Built by `npm run tools` (or a run's plan step) from the Go module proxy, pinned by version and hash.
      binary: pinnedToolPath(GO_HTTPBIN),
      // go-httpbin's own line (httpbin/cmd/cmd.go listenAndServeGracefully).
      startedPattern: /go-httpbin listening on/,
      logsBeforeListening: true,
      // go-httpbin reads HOST and PORT (cmd.go loadConfig): it binds the pod's private app address.
      podEnv: (pod) => ({ HOST: pod.appIp }),
    },
  ],
  [
    IMAGES.faultServer.replace(/:[^/:]+$/, ''),
    { entrypoint: 'apps/fault-server/main.ts', startedPattern: /\bfault-server listening\b/ },
  ],
]);

/** The local image for `image` (tag ignored), with an absolute entrypoint; `onUnknown` otherwise. */
export function localImageOf(image: string, onUnknown: () => never): LocalImage {
  const found = LOCAL_IMAGES.get(image.replace(/:[^/:]+$/, ''));
  return found ? { ...found, entrypoint: join(PROJECT_ROOT, found.entrypoint) } : onUnknown();
}
