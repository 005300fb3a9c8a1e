import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ISTIO_GATEWAY, istioReleases } from './istio-charts.ts';
import { ISTIO_IMAGES } from './istio-images.ts';

const get = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);

test("Istio's charts go in Istio's order, on our images, with what an upstream Envoy and two cores need", () => {
  const releases = istioReleases(ISTIO_IMAGES, { impl: 'istio', image: 'ztunnel-harness/istio-ztunnel:abc' });
  assert.deepEqual(
    releases.map((r) => `${r.release}:${r.chart}`),
    [
      'istio-base:base',
      'istiod:istio-control/istio-discovery',
      'istio-cni:istio-cni',
      'ztunnel:ztunnel',
      `${ISTIO_GATEWAY.name}:gateway`,
    ],
  );
  const [, istiod, cni, ztunnel, gateway] = releases.map((r) => r.values);
  assert.equal(get(istiod, 'image'), ISTIO_IMAGES.pilot);
  assert.equal(get(istiod, 'global.proxy.image'), ISTIO_IMAGES.proxyv2);
  assert.equal(get(istiod, 'env.PILOT_ENABLE_AMBIENT'), 'true');
  // istiod's own default debounce, as a Go duration; the arm sets another.
  assert.equal(get(istiod, 'env.PILOT_DEBOUNCE_AFTER'), '100ms');
  assert.equal(
    get(
      istioReleases(ISTIO_IMAGES, { impl: 'istio', image: 'z' }, 1000)[1]?.values,
      'env.PILOT_DEBOUNCE_AFTER',
    ),
    '1000ms',
  );
  // Istio's own Envoy filters off: upstream Envoy 1.40 would refuse them.
  assert.equal(get(istiod, 'env.PILOT_ENABLE_METADATA_EXCHANGE'), 'false');
  assert.equal(get(istiod, 'env.PILOT_ENABLE_ALPN_FILTER'), 'false');
  assert.equal(get(istiod, 'telemetry.enabled'), false);
  assert.equal(get(gateway, 'env.PEER_METADATA_DISCOVERY'), 'false');
  // The access log the explanation reads, in JSON with its fields.
  assert.equal(get(istiod, 'meshConfig.accessLogEncoding'), 'JSON');
  assert.match(
    String(get(istiod, 'meshConfig.accessLogFormat')),
    /"past_gateway_us":"%COMMON_DURATION\(US_TX_BEG:US_RX_BEG:us\)%"/,
  );
  assert.equal(get(cni, 'image'), ISTIO_IMAGES.installCni);
  assert.equal(get(cni, 'ambient.enabled'), true);
  assert.equal(get(ztunnel, 'image'), 'ztunnel-harness/istio-ztunnel:abc');
  // istio/ztunnel 1.31 logs its xDS responses at debug: the removal lag reads them.
  assert.equal(get(ztunnel, 'logLevel'), 'info,ztunnel::xds::client=debug');
  assert.equal(get(gateway, 'service.type'), 'ClusterIP');
  // Nothing is pulled.
  for (const v of [cni, ztunnel, gateway, get(istiod, 'global')])
    assert.ok(Object.values(v as object).includes('Never'), JSON.stringify(v));
});

test("our ztunnel in Istio's chart: the chart's container, told istiod's address in full (https: istiod's protocols)", () => {
  const ours = istioReleases(ISTIO_IMAGES, { impl: 'ours', image: 'ztunnel-harness/ztunnel:dev' })[3]?.values;
  assert.equal(get(ours, 'image'), 'ztunnel-harness/ztunnel:dev');
  assert.equal(get(ours, 'xdsAddress'), 'https://istiod.istio-system.svc:15012');
  assert.equal(get(ours, 'caAddress'), 'https://istiod.istio-system.svc:15012');
  // The binary reads the chart's host:port default as https itself.
  const binary = istioReleases(ISTIO_IMAGES, { impl: 'istio', image: 'b' })[3]?.values;
  assert.equal(get(binary, 'xdsAddress'), undefined);
});
