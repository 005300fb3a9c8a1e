// The kube source's Gateways and VirtualServices: client-node informers against the API server
// double, started only where the double serves networking.istio.io/v1 (its CRDs stored).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServerDouble } from '../../../clusters/kind/test/api-server-double.ts';
import { kindKubeconfig } from '../../../clusters/kind/test/fake-kind-docker.ts';
import { createLogger } from '../../../lib/index.ts';
import { waitUntil } from '../../../lib/test/wait-until.ts';
import { createKubeClusterSource } from '../kube-source.ts';

const crd = (plural: string, kind: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.networking.istio.io` },
  spec: { group: 'networking.istio.io', names: { plural, kind }, scope: 'Namespaced' },
});

const virtualService = (name: string) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'VirtualService',
  metadata: { name, namespace: 'load', creationTimestamp: '2026-11-28T10:00:00Z' },
  spec: { hosts: ['httpbin.example'], gateways: ['load/gw'] },
});

async function startSource(t: { after: (fn: () => Promise<void> | void) => void }, served: boolean) {
  const api = await startApiServerDouble();
  t.after(() => api.close());
  if (served) {
    api.put('customresourcedefinitions', crd('gateways', 'Gateway'));
    api.put('customresourcedefinitions', crd('virtualservices', 'VirtualService'));
    api.put('virtualservices', virtualService('vs'));
  }
  const kc = new KubeConfig();
  kc.loadFromString(kindKubeconfig('test', api.url));
  const lines: string[] = [];
  const source = createKubeClusterSource(kc, {
    tunnel: 'pod',
    log: createLogger({ component: 'istiod', write: (l) => lines.push(l) }),
  });
  let changes = 0;
  source.onChange(() => changes++);
  t.after(() => source.stop());
  await source.start();
  return { api, source, lines, changes: () => changes };
}

describe('kube source: Istio routing config', () => {
  it('without the routing API: no informers, routing() empty, one line saying so, no error', async (t) => {
    const { api, source, lines } = await startSource(t, false);
    assert.deepEqual(source.routing(), { gateways: [], virtualServices: [] });
    assert.equal(lines.filter((l) => l.includes('routing API not served')).length, 1, lines.join('\n'));
    assert.equal(
      api.requests.some((r) => r.path.endsWith('/gateways') && r.query['watch'] === 'true'),
      false,
      'no watch on a resource the API server does not serve',
    );
  });

  it('with it: lists and watches both kinds; a change is signalled and read as a view', async (t) => {
    const { api, source, lines, changes } = await startSource(t, true);
    assert.deepEqual(source.routing().virtualServices, [
      {
        namespace: 'load',
        name: 'vs',
        creationTimestamp: '2026-11-28T10:00:00.000Z',
        spec: { hosts: ['httpbin.example'], gateways: ['load/gw'] },
      },
    ]);
    assert.ok(lines.some((l) => l.includes('watching Gateways and VirtualServices')));
    await api.watching(4); // pods, services, gateways, virtualservices
    const before = changes();
    api.put('gateways', {
      apiVersion: 'networking.istio.io/v1',
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'load' },
      spec: { selector: { istio: 'ingressgateway' }, servers: [] },
    });
    await waitUntil('the Gateway seen', () => source.routing().gateways.length === 1);
    assert.ok(changes() > before, 'the control plane was told');
    assert.deepEqual(source.routing().gateways[0]?.spec, {
      selector: { istio: 'ingressgateway' },
      servers: [],
    });
    api.remove('virtualservices', 'load', 'vs');
    await waitUntil('the VirtualService gone', () => source.routing().virtualServices.length === 0);
  });
});
