// The control-plane step's Istio CRDs on the API server double: Gateway and VirtualService applied
// and established before istiod, istiod allowed to watch them; a CRD the API server never
// establishes fails the bring-up naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ClusterRole } from '@kubernetes/client-node';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { CONTROL_PLANE, startKindFixture } from './kind-fixtures.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/';

describe('kind bring-up: Istio routing CRDs', () => {
  it('applies Gateway and VirtualService CRDs, established, before istiod; istiod may watch both', async (t) => {
    const { api, backend } = await startKindFixture(t);
    await backend.up();
    const applies = api.requests.filter((r) => r.method === 'PATCH').map((r) => r.path);
    const crds = applies.filter((p) => p.startsWith(CRDS));
    assert.deepEqual(crds, [
      `${CRDS}gateways.networking.istio.io`,
      `${CRDS}virtualservices.networking.istio.io`,
    ]);
    // Sent as written (a CRD through client-node's untyped serializer loses its x-kubernetes-* keys,
    // and the API server refuses an int-or-string without them: 422 on a real cluster).
    for (const sent of api.requests.filter((r) => r.method === 'PATCH' && r.path.startsWith(CRDS)))
      assert.match(
        JSON.stringify(sent.body),
        /"observedGeneration":\{"anyOf":\[[^\]]*\],"x-kubernetes-int-or-string":true\}/,
      );
    const istiod = applies.indexOf('/apis/apps/v1/namespaces/istio-system/deployments/istiod');
    assert.ok(istiod > applies.indexOf(crds[1] ?? ''), applies.join('\n'));
    // Waited on: each read back until Established.
    assert.ok(
      api.requests.some((r) => r.method === 'GET' && r.path === `${CRDS}virtualservices.networking.istio.io`),
    );
    const role = api.get('clusterroles', '', 'istiod-ztunnel-harness') as V1ClusterRole | undefined;
    const rule = role?.rules?.find((r) => r.apiGroups?.includes('networking.istio.io'));
    assert.deepEqual(
      [rule?.resources, rule?.verbs],
      [
        ['gateways', 'virtualservices'],
        ['get', 'list', 'watch'],
      ],
    );
  });

  it('a CRD never established fails up() naming it and its condition', async (t) => {
    const { backend } = await startKindFixture(t, {
      api: { rollOutOnApply: [...CONTROL_PLANE], establishCrds: false },
      backend: { controlPlaneTimeoutMs: 400 },
    });
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ComponentFailed) &&
        /CustomResourceDefinition gateways\.networking\.istio\.io not established within 0\.4 s \(no Established condition yet\)/.test(
          err.message,
        ),
    );
  });
});
