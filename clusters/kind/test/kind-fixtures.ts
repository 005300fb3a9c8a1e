// A kind backend wired to fake kind/docker executables and an API server double, with its log folders
// in a fresh temporary run folder: the set-up the kind tests share.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import type { ClusterBackend } from '../../backend.ts';
import { IMAGES } from '../../manifests/index.ts';
import { createKindBackend } from '../kind-backend.ts';
import type { KindBackendOptions } from '../kind-backend.ts';
import { startApiServerDouble } from './api-server-double.ts';
import type { ApiServerDouble, ApiServerDoubleOptions } from './api-server-double.ts';
import { startControllerDouble } from './controller-double.ts';
import { createFakeKindAndDocker, kindKubeconfig } from './fake-kind-docker.ts';
import type { FakeTools } from './fake-kind-docker.ts';
import { fakeProvision } from './fake-provision.ts';
import type { FakeEngineCalls } from './fake-provision.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

/** What up() applies and waits for before the mesh: istiod and istio-cni's node agent. */
export const CONTROL_PLANE = ['istio-system/istiod', 'istio-system/istio-cni-node'] as const;
export interface KindFixture {
  api: ApiServerDouble;
  fakes: FakeTools;
  backend: ClusterBackend;
  /** The run folder: pods/ (logDir) and kind-logs/ (kindLogsDir) are in it. */
  runDir: string;
  /** What the backend told through onLogs. */
  told: string[];
  /** The fakes' calls as command lines (`kind export logs ...`). */
  commands: () => Promise<string[]>;
}

export interface KindFixtureOptions {
  name?: string;
  /** Environment of the fakes (FAKE_KIND_LOAD_FAIL, ...). */
  env?: Record<string, string>;
  /** Default: istiod and istio-cni roll out when applied, nothing else does. */
  api?: ApiServerDoubleOptions;
  /** The controller double plays the cluster's controllers and kubelets. */
  controllers?: boolean;
  backend?: Partial<KindBackendOptions>;
  /** What the fake provisioning's engine was asked (release, keep, noteCluster). */
  engine?: FakeEngineCalls;
}

/**
 * The cluster's doubles for a command run as a process (experiment, kind-smoke): the API server
 * double with the controller double playing its controllers, and fake kind/docker whose `kind get
 * kubeconfig` names that API server for the cluster `name`.
 */
export async function startKindDoubles(
  t: After,
  name: string,
): Promise<{ api: ApiServerDouble; fakes: FakeTools }> {
  const api = await startApiServerDouble();
  const controllers = startControllerDouble(api);
  t.after(async () => {
    controllers.stop();
    await api.close();
  });
  return { api, fakes: await createFakeKindAndDocker(kindKubeconfig(name, api.url)) };
}

let nextPort = 18400;

/**
 * The backend uses the default kind tools (createKindTools, cancelled by up()'s signal) with the fakes
 * first on PATH; its ingress port is one no other kind test uses.
 */
export async function startKindFixture(t: After, options: KindFixtureOptions = {}): Promise<KindFixture> {
  const name = options.name ?? 'harness-test';
  const runDir = await mkdtemp(join(tmpdir(), 'kind-run-'));
  t.after(() => rm(runDir, { recursive: true, force: true }));
  const api = await startApiServerDouble(options.api ?? { rollOutOnApply: [...CONTROL_PLANE] });
  const controllers = options.controllers ? startControllerDouble(api) : undefined;
  const fakes = await createFakeKindAndDocker(kindKubeconfig(name, api.url));
  const told: string[] = [];
  const toolsEnv = { PATH: fakes.path, FAKE_DIR: fakes.dir, ...options.env };
  const backend = createKindBackend({
    name,
    projectRoot: PROJECT_ROOT,
    toolsEnv,
    provision: fakeProvision(toolsEnv, options.engine),
    ingressHostPort: nextPort++,
    kubeconfigPath: join(runDir, 'kubeconfig'),
    logDir: join(runDir, 'pods'),
    onLogs: (message) => told.push(message),
    // Without the controller double nothing removes a deleted pod: close() need not wait long.
    ...(options.controllers ? {} : { closeWaitMs: 300 }),
    ...options.backend,
  });
  // The backend first (its close talks to the API server), then the cluster's doubles.
  t.after(async () => {
    await backend.close();
    controllers?.stop();
    await api.close();
  });
  const commands = async (): Promise<string[]> =>
    (await fakes.calls()).map((c) => `${c.tool} ${c.args.join(' ')}`);
  return { api, fakes, backend, runDir, told, commands };
}

export interface PodState {
  /** The Deployment it belongs to (default httpbin). */
  app?: string;
  ready?: boolean;
  restartCount?: number;
  namespace?: string;
  container?: string;
}

/** A pod of a Deployment (ReplicaSet `<app>-abc`) as a kubelet reports it, restarted as many times as asked. */
export function podObject(name: string, state: PodState = {}): V1Pod {
  const app = state.app ?? 'httpbin';
  const container = state.container ?? app;
  const restarts = state.restartCount ?? 0;
  return {
    metadata: {
      name,
      namespace: state.namespace ?? 'default',
      labels: { app, 'pod-template-hash': 'abc' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-abc`, uid: 'rs', controller: true },
      ],
    },
    spec: { nodeName: 'harness-test-worker', containers: [{ name: container, image: IMAGES.httpbin }] },
    status: {
      phase: 'Running',
      podIP: '10.244.1.7',
      conditions: [{ type: 'Ready', status: state.ready === false ? 'False' : 'True' }],
      containerStatuses: [
        {
          name: container,
          ready: state.ready !== false,
          restartCount: restarts,
          image: '',
          imageID: '',
          state: { running: {} },
          ...(restarts > 0
            ? {
                lastState: {
                  terminated: { exitCode: 1, reason: 'Error', finishedAt: new Date('2026-11-21T10:00:05Z') },
                },
              }
            : {}),
        },
      ],
    },
  };
}

/**
 * The control plane's pods as the kubelets report them once the double has rolled istiod and
 * istio-cni out: istiod's one and istio-cni's on each of the two workers.
 */
export function controlPlanePods(): V1Pod[] {
  const cni = (node: string): V1Pod => {
    const p = podObject(`istio-cni-node-${node}`, {
      app: 'istio-cni',
      namespace: 'istio-system',
      container: 'install-cni',
    });
    return {
      ...p,
      metadata: {
        ...p.metadata,
        labels: { 'k8s-app': 'istio-cni-node' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'istio-cni-node', uid: 'ds', controller: true },
        ],
      },
      spec: { ...p.spec, nodeName: `harness-test-${node}`, containers: p.spec?.containers ?? [] },
    };
  };
  return [
    podObject('istiod-abc-1', { app: 'istiod', namespace: 'istio-system', container: 'discovery' }),
    cni('worker'),
    cni('worker2'),
  ];
}

/** Polls `check` every 10 ms for up to 5 s. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; !(await check()); i += 1) {
    if (i > 500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Stores a pod in the double as the kubelet would report it (the watches then deliver it). */
export function putPod(api: ApiServerDouble, pod: V1Pod): void {
  api.put('pods', pod as unknown as Parameters<ApiServerDouble['put']>[1]);
}
