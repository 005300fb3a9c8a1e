import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { buildGateway, buildZtunnelDaemonSet } from '../manifests/index.ts';
import { withIstioZtunnel } from './istio-ztunnel.ts';
import type { KindRun } from './kind-run.ts';

type WithPodSpec = { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } };
const imageOf = (o: KubernetesObject): string | undefined =>
  (o as WithPodSpec).spec?.template?.spec?.containers?.[0]?.image;

const objects: KubernetesObject[] = [
  buildZtunnelDaemonSet({ graceS: 30 }),
  ...buildGateway({ mode: 'hbone' }),
];
const runOf = (binary: string | undefined, image: string | undefined) =>
  ({
    settings: binary ? { istioZtunnelBinary: binary } : {},
    provisioned: image ? { istioZtunnelImage: image } : undefined,
  }) as unknown as Pick<KindRun, 'settings' | 'provisioned'>;

test("kind applies the ztunnel DaemonSet as istio/ztunnel's binary's only with --ztunnel-impl istio-shared", () => {
  assert.equal(withIstioZtunnel(runOf(undefined, undefined), objects), objects);
  const applied = withIstioZtunnel(runOf('/x/ztunnel', 'ztunnel-harness/istio-ztunnel:ab'), objects);
  assert.equal(imageOf(applied[0] as KubernetesObject), 'ztunnel-harness/istio-ztunnel:ab');
  assert.deepEqual(applied.slice(1).map(imageOf), objects.slice(1).map(imageOf));
  assert.throws(() => withIstioZtunnel(runOf('/x/ztunnel', undefined), objects), /image was not built/);
});
