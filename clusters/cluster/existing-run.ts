// The kind machinery's run (watches, log followers, ops) pointed at an existing cluster: scoped to
// the run's namespace, Istio's and the gateway's, owning only the run's, its logs kept by the log
// scope (log-scope.ts), its facts measured rather than modelled.
import type { KindRun } from '../kind/kind-run.ts';
import { createKindRun } from '../kind/kind-run.ts';
import { normalizeKindOptions } from '../kind/kind-options.ts';
import type { KindSettings } from '../kind/kind-options.ts';
import { INGRESS_PATHS } from '../kind/load/ingress-paths.ts';
import type { LogScope } from '../kind/run-scope.ts';
import { PROJECT_ROOT } from '../../lib/index.ts';
import type { ExistingSettings } from './existing-options.ts';
import type { ExistingRun } from './existing-up.ts';
import { createLogScope } from './log-scope.ts';
import type { LogScopeInput } from './log-scope.ts';

/** What the log scope reads when asked, after the run is made: the run, and the watch's version. */
interface LateRun {
  x: ExistingRun | undefined;
  watchVersion: number;
}

export function createExistingRun(settings: ExistingSettings): ExistingRun {
  const ns = settings.runNamespace;
  const istio = settings.istioNamespace;
  const late: LateRun = { x: undefined, watchVersion: 0 };
  const kindSettings = kindSettingsOf(settings);
  const logs = createExistingLogScope(settings, late);
  const run = createKindRun(kindSettings, {
    scope: {
      watched: new Set([ns, istio, settings.gateway.namespace]),
      owned: new Set([ns]),
      gateway: { kind: 'Deployment', ...settings.gateway },
      logs,
    },
    facts: {
      nodes: 0,
      timing_model: 'measured',
      ztunnel_mode: 'in-pod',
      ingress_path: INGRESS_PATHS.cluster,
      cluster_context: '',
      kubernetes_version: '',
      istio_version: '',
      ztunnel_image: '',
    },
  });
  run.changeListeners.add(() => (late.watchVersion += 1));
  const x: ExistingRun = { run, settings, kc: undefined, facts: undefined, created: false };
  late.x = x;
  return x;
}

/** The kind run's settings: the user's context, kept at close, the load from inside the cluster. */
function kindSettingsOf(settings: ExistingSettings): KindSettings {
  return normalizeKindOptions({
    clock: settings.clock,
    name: settings.context ?? 'current-context',
    projectRoot: PROJECT_ROOT,
    logDir: settings.logDir,
    stepLogDir: settings.stepLogDir,
    kubeconfigPath: settings.kubeconfig ?? '',
    keepCluster: true,
    loadFrom: 'cluster',
    ...(settings.onLogs ? { onLogs: settings.onLogs } : {}),
    ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
  });
}

function createExistingLogScope(settings: ExistingSettings, late: LateRun): LogScope {
  return createLogScope({
    runNamespace: settings.runNamespace,
    istioNamespace: settings.istioNamespace,
    gatewayNamespace: settings.gateway.namespace,
    gatewaySelector: () => late.x?.facts?.gateway?.selector,
    host: settings.routeHost,
    addresses: () => watchedAddresses(late.x?.run.watch),
    watchVersion: () => late.watchVersion,
    allIstioLogs: settings.allIstioLogs,
  });
}

/** The addresses the watch has seen: pods, nodes' addresses, Services' cluster IPs. */
function watchedAddresses(watch: KindRun['watch']): ReturnType<LogScopeInput['addresses']> {
  return {
    pods: watch?.list('pods') ?? [],
    nodeIps: (watch?.list('nodes') ?? []).flatMap((n) => (n.status?.addresses ?? []).map((a) => a.address)),
    serviceIps: (watch?.list('services') ?? []).flatMap((v) => v.spec?.clusterIPs ?? []),
  };
}
