// An existing cluster's bring-up, as steps (each timed, its log in the run folder): the preflight's
// checks, the API and the watches, the run's namespace with its route. Nothing is created before the
// checks pass; the namespace is the run's from the moment its creation is asked.
import type { KubeConfig } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { connectRun } from '../kind/connect-run.ts';
import type { KindRun } from '../kind/kind-run.ts';
import { clusterChecks, formatChecks, isReady } from './cluster-checks.ts';
import { imageVersion, readClusterFacts } from './cluster-facts.ts';
import type { ClusterFacts } from './cluster-facts.ts';
import { loadKubeConfig } from './check-cluster.ts';
import { restartsZtunnel } from './existing-options.ts';
import type { ExistingSettings } from './existing-options.ts';
import { createRunNamespaceObject } from './owned-namespaces.ts';
import { buildRunObjects } from './run-objects.ts';
import { startRunLease } from './run-lease.ts';
import type { RunLease } from './run-lease.ts';
import { expiryAt } from './run-ownership.ts';
import { guardWrites } from './write-guard.ts';
import { ISTIO_CNI_DAEMONSET } from '../manifests/istio-cni-daemonset.ts';

/** What the steps share: the kind machinery's run (watches, logs, ops), the settings, what was found. */
export interface ExistingRun {
  readonly run: KindRun;
  readonly settings: ExistingSettings;
  kc: KubeConfig | undefined;
  facts: ClusterFacts | undefined;
  /** The run's namespace was asked for: close() deletes it. */
  created: boolean;
  /** The run's lease on its namespace, renewed until close. */
  lease?: RunLease | undefined;
}

/** The kubeconfig at its context (bad input, exit 2, when either is wrong). */
export function kubeConfigOf(settings: ExistingSettings): KubeConfig {
  return loadKubeConfig({
    ...(settings.kubeconfig === undefined ? {} : { kubeconfig: settings.kubeconfig }),
    ...(settings.context === undefined ? {} : { context: settings.context }),
  });
}

/**
 * The preflight: the cluster's facts read and checked (`npm run cluster -- check`'s), refused with
 * exit 2 and every missing line when something a run needs is not there; E1's ztunnel restart needs
 * --allow-ztunnel-restart and the permission to patch the DaemonSet.
 */
export async function checkExisting(x: ExistingRun): Promise<ClusterFacts> {
  const { settings } = x;
  const kc = (x.kc ??= kubeConfigOf(settings));
  const facts = await readClusterFacts(kc, {
    istioNamespace: settings.istioNamespace,
    gateway: settings.gateway,
    runNamespace: settings.runNamespace,
  }).catch((err: unknown) => {
    throw new HarnessError(
      ErrorCode.BadInput,
      `the API server of context ${kc.getCurrentContext()} (${kc.getCurrentCluster()?.server ?? '?'}) did not answer: ${err instanceof Error ? err.message : String(err)}; check --kubeconfig and --context`,
    );
  });
  const withE1 = restartsZtunnel(settings);
  if (withE1 && !settings.allowZtunnelRestart)
    throw new HarnessError(
      ErrorCode.BadInput,
      `this scenario restarts the cluster's ztunnel DaemonSet (${settings.istioNamespace}/ztunnel), which disrupts every meshed pod of the cluster's nodes; pass --allow-ztunnel-restart to allow it`,
    );
  const checks = clusterChecks(facts);
  if (!isReady(checks, withE1))
    throw new HarnessError(
      ErrorCode.BadInput,
      `cluster ${facts.context} lacks what the run needs (nothing was created):\n${formatChecks(checks)}`,
    );
  x.facts = facts;
  recordFacts(x.run, facts);
  return facts;
}

function recordFacts(run: KindRun, facts: ClusterFacts): void {
  run.facts['cluster_context'] = facts.context;
  run.facts['kubernetes_version'] = facts.kubernetesVersion;
  run.facts['istio_version'] = facts.istiod ? imageVersion(facts.istiod.image) : '';
  run.facts['ztunnel_image'] = facts.ztunnel?.image ?? '';
}

/** The API and the watches (pods, slices, workloads across namespaces; events from the run's scope). */
export async function connectExisting(x: ExistingRun): Promise<void> {
  const kc = (x.kc ??= kubeConfigOf(x.settings));
  // Istio's pods are older than the run: their logs are read from now on (to the second).
  const { clock } = x.settings;
  x.run.logsSince = new Date(Math.floor((clock.now() + clock.wallOffsetMs) / 1000) * 1000);
  await connectRun(x.run, kc);
  // Every write of the run from here on is held to its namespace (and the consented restart).
  const { settings } = x;
  if (x.run.api)
    x.run.api = guardWrites(x.run.api, {
      runNamespace: settings.runNamespace,
      ztunnel:
        settings.allowZtunnelRestart && restartsZtunnel(settings)
          ? { namespace: settings.istioNamespace, name: 'ztunnel' }
          : undefined,
      ...(settings.allowIstioCniFaults
        ? { istioCni: { namespace: settings.istioNamespace, name: ISTIO_CNI_DAEMONSET.name } }
        : {}),
    });
  x.run.facts['nodes'] = x.run.watch?.list('nodes').length ?? 0;
}

/**
 * The run's namespace (ambient, owner-labelled, its lease's expiry) created, never taken over: one
 * of that name that exists already stops the run (409); then httpbin's ServiceAccount, the Gateway
 * and the VirtualService to it, in it. The lease is renewed from then on.
 */
export async function createRunNamespace(x: ExistingRun): Promise<void> {
  const api = x.run.api;
  const gateway = x.facts?.gateway;
  const kc = x.kc;
  if (!api || !gateway || !kc) throw new Error('createRunNamespace before the check and the connection');
  const { clock, runNamespace } = x.settings;
  const [namespace, ...inside] = buildRunObjects({
    namespace: runNamespace,
    host: x.settings.routeHost,
    gatewaySelector: gateway.selector,
    expiresAt: expiryAt(clock.now() + clock.wallOffsetMs),
  });
  // Asked for: close() deletes it, unless the API says it was someone else's (409).
  x.created = true;
  try {
    await createRunNamespaceObject(kc, namespace);
  } catch (err) {
    x.created = false;
    throw err;
  }
  x.lease = startRunLease({ kc, namespace: runNamespace, clock, onLogs: x.settings.onLogs });
  for (const object of inside) await api.apply(object);
  x.settings.onProgress?.(
    `cluster: the run's route: Host ${x.settings.routeHost} on ${gateway.namespace}/${gateway.name} reaches the run's httpbin for anyone who can reach the gateway and sends that Host, until the run's namespace is deleted (at the run's end; after a kill -9, by \`npm run cluster -- cleanup\`)\n`,
  );
}
