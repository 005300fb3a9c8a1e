// A user's cluster with Istio ambient, as the API server double (clusters/kind/test/): istiod, the
// ztunnel and istio-cni DaemonSets and the ingress gateway as Istio 1.28.1's charts install them,
// and a kubeconfig naming it (context kind-theirs).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../lib/index.ts';
import { startApiServerDouble } from '../../kind/test/api-server-double.ts';
import type { ApiServerDouble, ApiServerDoubleOptions } from '../../kind/test/api-server-double.ts';
import { kindKubeconfig } from '../../kind/test/fake-kind-docker.ts';

export const ISTIO = 'istio-system';

/** A cluster with Istio 1.28.1's ambient profile and its ingress gateway, as its charts install them. */
export async function startUserCluster(
  t: { after(fn: () => unknown): void },
  options: ApiServerDoubleOptions & { ambient?: boolean; gateway?: boolean } = {},
) {
  const api = await startApiServerDouble({ extraApiGroups: ['networking.istio.io'], ...options });
  t.after(() => api.close());
  // Istio's base chart installs its CRDs: the double serves their kinds once the CRDs are there.
  if (options.extraApiGroups?.includes('networking.istio.io') ?? true)
    for (const crd of ['gateways.networking.istio.io', 'virtualservices.networking.istio.io'])
      api.put('customresourcedefinitions', { metadata: { name: crd } });
  api.put('deployments', {
    metadata: { name: 'istiod', namespace: ISTIO, labels: { app: 'istiod' } },
    spec: {
      replicas: 1,
      template: { spec: { containers: [{ name: 'discovery', image: 'docker.io/istio/pilot:1.28.1' }] } },
    },
    status: { readyReplicas: 1 },
  });
  if (options.ambient !== false)
    for (const [name, image] of [
      ['ztunnel', 'docker.io/istio/ztunnel:1.28.1'],
      ['istio-cni-node', 'docker.io/istio/install-cni:1.28.1'],
    ] as const)
      api.put('daemonsets', {
        metadata: { name, namespace: ISTIO },
        spec: { template: { spec: { containers: [{ name, image }] } } },
        status: { numberReady: 3, desiredNumberScheduled: 3 },
      });
  if (options.gateway !== false) {
    api.put('services', {
      metadata: { name: 'istio-ingressgateway', namespace: ISTIO },
      spec: {
        clusterIP: '10.96.7.7',
        selector: { app: 'istio-ingressgateway', istio: 'ingressgateway' },
        ports: [{ port: 15021 }, { port: 80 }, { port: 443 }],
      },
    });
    api.put('endpointslices', {
      metadata: {
        name: 'istio-ingressgateway-x1',
        namespace: ISTIO,
        labels: { 'kubernetes.io/service-name': 'istio-ingressgateway' },
      },
      endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'check-cluster-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kindKubeconfig('theirs', api.url));
  return { api, kubeconfig };
}

/** Time that moves only when slept through: the probe's retries without real waits. */
export function instantClock(): Clock {
  let nowMs = 0;
  return {
    now: () => nowMs,
    sleep: (ms) => {
      nowMs += ms;
      return new Promise((resolve) => setImmediate(resolve));
    },
    wallOffsetMs: Date.UTC(2026, 10, 27),
  };
}

/** Kubernetes' namespace controller, enough for the double: a deleted namespace goes. */
export function removeDeletedNamespaces(api: ApiServerDouble): void {
  api.onChange((resource) => {
    if (resource !== 'namespaces') return;
    for (const ns of api.list('namespaces'))
      if (ns.metadata?.['deletionTimestamp']) api.remove('namespaces', '', ns.metadata.name ?? '');
  });
}
