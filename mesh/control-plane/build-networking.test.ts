import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../lib/index.ts';
import { createNetworkingBuilder } from './build-networking.ts';
import type { PodView, RoutingView } from './cluster-source.ts';

const gatewayPod: PodView = {
  uid: 'uid-gw-1',
  namespace: 'istio-system',
  name: 'gw-1',
  nodeName: 'node-1',
  podIp: '10.0.0.10',
  serviceAccount: 'istio-ingressgateway',
  labels: { istio: 'ingressgateway' },
  isMeshed: false,
  isReady: true,
  isDeleting: false,
  isTerminal: false,
};

describe('the networking snapshot of a push', () => {
  it('logs each problem once while it lasts, again after it went and came back; never throws on junk', () => {
    const lines: string[] = [];
    let routing: RoutingView = {
      gateways: [
        {
          namespace: 'load',
          name: 'gw',
          spec: { servers: [{ port: { number: 443, protocol: 'HTTPS' }, hosts: ['*'] }] },
        },
      ],
      virtualServices: [
        {
          namespace: 'load',
          name: 'vs',
          spec: { hosts: ['a.example'], gateways: ['gw'], http: [{ rewrite: {}, route: [] }] },
        },
        { namespace: 'load', name: 'junk', spec: 'not a spec' },
      ],
    };
    const build = createNetworkingBuilder(
      { pods: () => [gatewayPod], routing: () => routing },
      createLogger({ component: 'test', level: 'warn', write: (l) => lines.push(l) }),
    );
    const first = build();
    assert.deepEqual(
      first.gateways.map((g) => [g.name, g.servers.length]),
      [['gw', 0]],
    );
    assert.deepEqual(
      first.virtualServices.map((v) => [v.name, v.http.length]),
      [['vs', 0]],
    );
    assert.deepEqual(first.podLabels.get('istio-system/gw-1'), { istio: 'ingressgateway' });
    assert.equal(lines.length, 3);
    assert.match(
      lines.join('\n'),
      /Istio config not served .*VirtualService load\/vs http\[0\]: skipped: unsupported rewrite, no route destination/,
    );
    build();
    assert.equal(lines.length, 3, 'the same problems are not logged again on the next push');
    routing = { gateways: [], virtualServices: [] };
    build();
    routing = { gateways: [], virtualServices: [{ namespace: 'load', name: 'junk', spec: null }] };
    build();
    assert.equal(lines.length, 4);
    assert.match(lines[3] ?? '', /VirtualService load\/junk: no spec; skipped/);
  });

  it('a source without routing gives an empty snapshot', () => {
    const build = createNetworkingBuilder(
      { pods: () => [] },
      createLogger({ component: 'test', level: 'error' }),
    );
    const snapshot = build();
    assert.deepEqual([snapshot.gateways, snapshot.virtualServices], [[], []]);
  });
});
