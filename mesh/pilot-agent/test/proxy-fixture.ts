// The real proxy path for tests: our control plane (startControlPlane over a fake ClusterSource,
// CA and mTLS ADS), and pilot-agent (`node mesh/pilot-agent/main.ts proxy router|sidecar`) as its own
// process with the environment the proxy container gets, running the real Envoy 1.40: CSR to the CA
// with a pod's token, SDS, bootstrap, ADS, readiness on <ip>:15021. Each mesh lives on fresh
// 127.x addresses: the gateway pod at .10, two ambient httpbin pods at .2 and .3.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { isExecutable, pinnedEnvoyPath } from '../../../lib/install/index.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { followLog, openContainerLog } from '../../../clusters/local/container-log.ts';
import { createLogger, createSystemClock } from '../../../lib/index.ts';
import type {
  ClusterSource,
  ControlPlane,
  PodView,
  RoutingView,
  ServiceView,
} from '../../control-plane/index.ts';
import { startControlPlane } from '../../control-plane/index.ts';
import type { TokenCaller } from '../../pki/index.ts';
import type { ParsedAccessLog } from '../../xds/index.ts';
import { parseAccessLogLine } from '../../xds/index.ts';
import { STATUS_PORT } from '../agent-config.ts';
import { createChanges, waitFor } from './observed.ts';
import type { Observable } from './observed.ts';

const MAIN = join(PROJECT_ROOT, 'mesh', 'pilot-agent', 'main.ts');
const ENVOY = pinnedEnvoyPath();
/** Why the real-Envoy tests skip, or false when Envoy 1.40 is installed (`npm run tools`). */
export const envoyMissing: string | false = (await isExecutable(ENVOY))
  ? false
  : `Envoy 1.40 is not installed at ${ENVOY}; run \`npm run tools\``;

/** The gateway's listener port, and the app port a sidecar's inbound listener serves. */
export const PROXY_PORT = 8080;

export interface TestMesh {
  cp: ControlPlane;
  /** The control plane's warnings and errors (refused certificates and xDS streams, NACKs). */
  log: string[];
  gateway: PodView;
  /** The ambient httpbin pods (Service default/httpbin 8000 -> 8080), and their addresses. */
  httpbin: PodView[];
  podIps: [string, string];
  startProxy(options?: ProxyOptions): Promise<Proxy>;
  /** Replaces the Gateways and VirtualServices; the control plane pushes as for any change. */
  setRouting(routing: RoutingView): void;
}

export interface ProxyOptions {
  type?: 'router' | 'sidecar';
  /** The pod it runs in (default the gateway's): its address, name and service account's token. */
  pod?: PodView;
  /** A sidecar's app address (LOCAL_BIND_ADDRESS; its status port listens there too). */
  localBindAddress?: string;
  /** ISTIO_META_<KEY> values (node metadata), e.g. HARNESS_ROUTE_POLICY, DISABLE_HBONE_SEND. */
  metadata?: Record<string, string>;
}

export interface AccessEntry extends ParsedAccessLog {
  path: string;
}

export interface Proxy extends Observable {
  pid: number;
  /** Where it serves: <pod ip>:8080 (the gateway's listener, or a sidecar's inbound one). */
  ingress: string;
  /** Every stdout line: Envoy's access log, connect_originate's lines, pilot-agent's log. */
  lines: readonly string[];
  accessLog(): AccessEntry[];
  /** The access-log line for `path` (Envoy flushes every second), once it is written. */
  logFor(path: string): Promise<AccessEntry>;
}

/** What a test mesh serves besides its pods and default/httpbin. */
export interface TestMeshOptions {
  /**
   * Gateways and VirtualServices (then also the gateway's Service, istio-system/istio-ingressgateway
   * port 80 -> 8080, which a Gateway server's port 80 names).
   */
  routing?: RoutingView;
  /** More Services (at `prefix`.101, .102, ...). */
  services?: Omit<ServiceView, 'vip'>[];
}

type FakeSource = ClusterSource & { setRouting(routing: RoutingView): void };

function fakeSource(pods: PodView[], prefix: string, options: TestMeshOptions): FakeSource {
  let routing = options.routing;
  const listeners = new Set<() => void>();
  const gatewayService: ServiceView = {
    namespace: 'istio-system',
    name: 'istio-ingressgateway',
    vip: `${prefix}.99`,
    selector: { app: 'istio-ingressgateway' },
    ports: [{ port: 80, targetPort: PROXY_PORT }],
  };
  const services: ServiceView[] = [
    {
      namespace: 'default',
      name: 'httpbin',
      vip: `${prefix}.100`,
      selector: { app: 'httpbin' },
      ports: [{ port: 8000, targetPort: 8080 }],
    },
    ...(options.services ?? []).map((s, i) => ({ ...s, vip: `${prefix}.${String(101 + i)}` })),
    ...(routing ? [gatewayService] : []),
  ];
  return {
    pods: () => pods,
    services: () => services,
    routing: () => routing ?? { gateways: [], virtualServices: [] },
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setRouting(next) {
      routing = next;
      for (const listener of listeners) listener();
    },
  };
}

const pod = (
  p: Pick<PodView, 'name' | 'namespace' | 'podIp' | 'serviceAccount' | 'labels' | 'isMeshed'>,
) => ({
  uid: `uid-${p.name}`,
  nodeName: 'node-1',
  isReady: true,
  isDeleting: false,
  isTerminal: false,
  ...p,
});

/** A control plane over the gateway pod and two httpbin pods at `prefix`.x (e.g. '127.112.3'). */
export async function startTestMesh(
  t: TestContext,
  prefix: string,
  options: TestMeshOptions = {},
): Promise<TestMesh> {
  const gateway = pod({
    name: 'istio-ingressgateway-6b7c9d-x2k4p',
    namespace: 'istio-system',
    podIp: `${prefix}.10`,
    serviceAccount: 'istio-ingressgateway',
    labels: { app: 'istio-ingressgateway' },
    isMeshed: false,
  });
  const podIps: [string, string] = [`${prefix}.2`, `${prefix}.3`];
  const httpbin = podIps.map((ip, i) =>
    pod({
      name: `httpbin-${String(i + 1)}`,
      namespace: 'default',
      podIp: ip,
      serviceAccount: 'httpbin',
      labels: { app: 'httpbin' },
      isMeshed: true,
    }),
  );
  // TokenReview: a token stands for the pod it was made for (the kubelet's projected token).
  const tokens = new Map<string, TokenCaller>();
  const log: string[] = [];
  const source = fakeSource([gateway, ...httpbin], prefix, options);
  const cp = await startControlPlane({
    source,
    authenticate: (token) => Promise.resolve(tokens.get(token) ?? 'unknown test token'),
    clock: createSystemClock(),
    log: createLogger({ component: 'control-plane', level: 'warn', write: (l) => log.push(l) }),
    host: `${prefix}.200`,
    debounceQuietMs: 10,
    debounceMaxMs: 100,
    pushLatencyMs: 0,
    ports: { xds: 0, ca: 0, envoyXds: 0 },
  });
  t.after(() => cp.close());
  const dir = await mkdtemp(join(tmpdir(), 'proxy-fixture-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const rootFile = join(dir, 'root-cert.pem');
  await writeFile(rootFile, cp.ca.rootPem);

  const startProxy = async (options: ProxyOptions = {}): Promise<Proxy> => {
    const self = options.pod ?? gateway;
    const token = randomBytes(16).toString('hex');
    tokens.set(token, {
      namespace: self.namespace,
      serviceAccount: self.serviceAccount,
      podName: self.name,
      podUid: self.uid,
      nodeName: self.nodeName,
    });
    const tokenFile = join(dir, `token-${token.slice(0, 8)}`);
    await writeFile(tokenFile, token);
    const metadata = Object.entries(options.metadata ?? {}).map(([k, v]): [string, string] => [
      `ISTIO_META_${k}`,
      v,
    ]);
    // Into a file, as a container runtime keeps its log: Envoy opens /dev/stdout for its access log,
    // which fails (ENXIO) on the socketpair Node would give a piped child.
    const logPath = join(dir, `proxy-${token.slice(0, 8)}.log`);
    const fd = openContainerLog(logPath);
    const child = (() => {
      try {
        return spawn(process.execPath, [MAIN, 'proxy', options.type ?? 'router'], {
          env: {
            PATH: process.env['PATH'] ?? '',
            INSTANCE_IP: self.podIp,
            POD_NAME: self.name,
            POD_NAMESPACE: self.namespace,
            SERVICE_ACCOUNT: self.serviceAccount,
            ...(options.localBindAddress ? { LOCAL_BIND_ADDRESS: options.localBindAddress } : {}),
            XDS_ADDRESS: cp.envoyXdsAddress,
            CA_ADDRESS: cp.caUrl,
            CA_ROOT_CA: rootFile,
            AUTH_TOKEN: tokenFile,
            ENVOY_BINARY: ENVOY,
            ISTIO_CPU_LIMIT: '1', // one worker: one HBONE connection per pod, as the research ran it
            TERMINATION_DRAIN_DURATION: '0s', // SIGTERM in t.after: drain, kill Envoy, exit at once
            ...Object.fromEntries(metadata),
          },
          // Its own process group, so whatever is left of it (Envoy) can be killed by the group's id.
          detached: true,
          stdio: ['ignore', fd, fd],
        });
      } finally {
        closeSync(fd); // the child holds its own copy
      }
    })();
    const pid = child.pid ?? 0;
    const exited = once(child, 'exit');
    t.after(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      }
      try {
        process.kill(-pid, 'SIGKILL');
      } catch (err) {
        // ESRCH: pilot-agent already killed its Envoy and exited; the group is gone.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    });
    const changes = createChanges();
    const lines: string[] = [];
    const follower = followLog(logPath, (line) => {
      lines.push(line);
      changes.notify();
      return true;
    });
    t.after(() => follower.stop());
    child.once('exit', () => {
      changes.notify();
    });
    await untilReady(`${options.localBindAddress ?? self.podIp}:${String(STATUS_PORT)}`, () =>
      child.exitCode === null && child.signalCode === null
        ? undefined
        : `pilot-agent exited (${String(child.exitCode ?? child.signalCode)}): ${lines.slice(-20).join('\n')}`,
    );
    const accessLog = (): AccessEntry[] =>
      lines.flatMap((line) => {
        const entry = parseAccessLogLine(line);
        return entry ? [{ ...entry, path: (JSON.parse(line) as { path?: string }).path ?? '' }] : [];
      });
    return {
      pid,
      ingress: `${self.podIp}:${String(PROXY_PORT)}`,
      lines,
      onChange: changes.onChange,
      accessLog,
      logFor: (path) =>
        waitFor(changes, `the access-log line for ${path}`, () => accessLog().find((e) => e.path === path)),
    };
  };
  const setRouting = (routing: RoutingView): void => {
    source.setRouting(routing);
  };
  return { cp, log, gateway, httpbin, podIps, startProxy, setRouting };
}

/** Polls pilot-agent's readiness (as the kubelet's probe does) until 200; throws why it never came. */
async function untilReady(
  address: string,
  failed: () => string | undefined,
  timeoutMs = 20_000,
): Promise<void> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const why = failed();
    if (why) throw new Error(why);
    const res = await fetch(`http://${address}/healthz/ready`).then(
      async (r) => `${String(r.status)} ${await r.text()}`,
      (err: unknown) => String(err),
    );
    if (res.startsWith('200')) return;
    if (performance.now() > end)
      throw new Error(`${address} not ready within ${String(timeoutMs)} ms: ${res}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
