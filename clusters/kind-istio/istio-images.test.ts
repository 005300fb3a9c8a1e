import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ISTIO_IMAGES, istioImageSpecs } from './istio-images.ts';
import { ISTIO_MODULE } from './istio-release.ts';

test("Istio's images: FROM our slim rootfs, laid out as Istio's Dockerfiles, tagged with the module's commit", () => {
  const specs = istioImageSpecs(
    'ztunnel-harness/rootfs-slim:x',
    {
      pilotDiscovery: '/b/pd',
      pilotAgent: '/b/pa',
      installCni: '/b/ic',
      istioCni: '/b/cni',
      envoy: '/b/envoy',
    },
    '/mod/tools/packaging/common/envoy_bootstrap.json',
  );
  assert.deepEqual(
    specs.map((s) => s.image),
    [ISTIO_IMAGES.pilot, ISTIO_IMAGES.proxyv2, ISTIO_IMAGES.installCni],
  );
  for (const s of specs) {
    assert.ok(s.image.endsWith(`:${ISTIO_MODULE.commit}`));
    assert.equal(s.dockerfile.match(/^FROM /gm)?.length, 1);
    assert.match(s.dockerfile, /^FROM ztunnel-harness\/rootfs-slim:x$/m);
    for (const name of Object.keys(s.files)) assert.match(s.dockerfile, new RegExp(`^COPY ${name} `, 'm'));
  }
  const [pilot, proxy, cni] = specs;
  assert.match(pilot?.dockerfile ?? '', /^USER 1337:1337$/m);
  assert.match(
    proxy?.dockerfile ?? '',
    /^COPY envoy_bootstrap.json \/var\/lib\/istio\/envoy\/envoy_bootstrap_tmpl.json$/m,
  );
  assert.equal(proxy?.files['envoy'], '/b/envoy');
  assert.match(cni?.dockerfile ?? '', /^COPY istio-cni \/opt\/cni\/bin\/istio-cni$/m);
});
