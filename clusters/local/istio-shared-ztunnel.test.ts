import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DATAPLANE_MODE_LABEL, IMAGES } from '../manifests/index.ts';
import { createAddressPool } from './address-pool.ts';
import type { PodRecord } from './cluster-state.ts';
import { istioSharedZtunnelImage } from './istio-shared-ztunnel.ts';
import { createPodRecord } from './pod-factory.ts';

const pod = (name: string, over: Partial<PodRecord> = {}): PodRecord => ({
  uid: `uid-${name}`,
  name,
  namespace: 'default',
  nodeName: 'node-1',
  hostIp: '127.9.0.1',
  podIp: `10.9.1.${String(name.length)}`,
  appIp: `10.9.1.${String(name.length)}`,
  isMeshed: true,
  serviceAccount: 'httpbin',
  labels: {},
  owner: { kind: 'Deployment', name: 'httpbin', templateHash: 'h' },
  spec: { containers: [] },
  phase: 'Running',
  isReady: true,
  createdAtMs: 0,
  ...over,
});

test("the image points the binary at the control plane's delta ADS and gRPC CA over TLS, or FAKE_CA", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'istio-shared-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const envOf = (ca?: 'istiod' | 'fake') => {
    const image = istioSharedZtunnelImage({
      binary: '/bin/ztunnel',
      nodeRunDir: () => dir,
      xds: { address: '127.9.0.200:15013', rootCertPem: 'ROOT PEM' },
      ...(ca ? { ca } : {}),
    });
    assert.equal(image.logEvents?.[0]?.oncePerContainer, true, 'one deadline per instance');
    const ztunnel = pod('ztunnel-x', { namespace: 'istio-system', isMeshed: false });
    return image.podEnv?.(ztunnel, { envoyBinary: '' }) ?? {};
  };
  const env = envOf();
  assert.equal(env['INPOD_UDS'], join(dir, 'ztunnel.sock'));
  assert.equal(env['XDS_ADDRESS'], 'https://127.9.0.200:15013');
  assert.equal(readFileSync(env['XDS_ROOT_CA'] ?? '', 'utf8'), 'ROOT PEM');
  assert.equal(env['LOCAL_XDS_PATH'], undefined, 'no static workloads: they come over xDS');
  assert.equal(env['PROXY_MODE'], undefined, 'shared mode is the default');
  // The default: our CA over gRPC on the same server, checked against the same root file.
  assert.equal(env['FAKE_CA'], undefined);
  assert.equal(env['CA_ADDRESS'], 'https://127.9.0.200:15013');
  assert.equal(env['CA_ROOT_CA'], env['XDS_ROOT_CA']);
  const fake = envOf('fake');
  assert.equal(fake['FAKE_CA'], 'true');
  assert.equal(fake['CA_ADDRESS'], undefined);
  assert.equal(fake['XDS_ADDRESS'], 'https://127.9.0.200:15013');
});

test('with shared istio/ztunnel the DaemonSet pod gets a namespace and a meshed app binds the pod address', () => {
  const addresses = createAddressPool(77);
  let next = 1;
  addresses.attachNetns((node) => `10.77.${String(node)}.${String(++next)}`);
  const make = (image: string, labels: Record<string, string>, shared: boolean): PodRecord =>
    createPodRecord({
      owner: { kind: 'DaemonSet', name: 'x', templateHash: 'h' },
      namespace: 'default',
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image }] } },
      node: { name: 'node-1', ip: '127.77.0.1' },
      nodeIndex: 1,
      addresses,
      nowMs: 0,
      ...(shared ? { istioShared: true } : {}),
    });
  const ztunnel = make(IMAGES.ztunnel, {}, true);
  assert.equal(ztunnel.netns, true);
  assert.equal(ztunnel.appIp, ztunnel.podIp);
  assert.equal(make(IMAGES.ztunnel, {}, false).netns, undefined, 'ours stays on loopback');
  const meshed = make(IMAGES.httpbin, { [DATAPLANE_MODE_LABEL]: 'ambient' }, true);
  assert.equal(meshed.appIp, meshed.podIp);
  const ours = make(IMAGES.httpbin, { [DATAPLANE_MODE_LABEL]: 'ambient' }, false);
  assert.notEqual(ours.appIp, ours.podIp, 'ours owns the pod address, the app a private one');
});
