import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindGatewayRoutes } from './gateway-binding.ts';
import type { GatewayProxy } from './gateway-binding.ts';
import { parseGateway } from './gateway.ts';
import type { GatewayConfig } from './gateway.ts';
import { parseVirtualService } from './virtual-service.ts';
import type { VirtualServiceConfig } from './virtual-service.ts';

const PROXY: GatewayProxy = {
  namespace: 'istio-system',
  labels: { app: 'istio-ingressgateway', istio: 'ingressgateway' },
  servicePorts: [{ port: 80, targetPort: 8080 }],
  listenerPort: 8080,
};

function gateway(name: string, spec: Record<string, unknown>): GatewayConfig {
  const { config } = parseGateway({ namespace: 'load', name, spec });
  assert.ok(config);
  return config;
}

function vs(
  name: string,
  spec: Record<string, unknown>,
  created = '2026-11-28T10:00:00Z',
): VirtualServiceConfig {
  const { config, problems } = parseVirtualService({
    namespace: 'load',
    name,
    creationTimestamp: created,
    spec,
  });
  assert.deepEqual(problems, []);
  assert.ok(config);
  return config;
}

const server = (hosts: string[], number = 80) => ({
  port: { number, protocol: 'HTTP', name: 'http' },
  hosts,
});
const GW = gateway('gw', { selector: { istio: 'ingressgateway' }, servers: [server(['*'])] });
const to = (host: string) => [{ destination: { host } }];

/** Each host's name and its routes as `path -> destination`. */
const summary = (hosts: ReturnType<typeof bindGatewayRoutes>) =>
  hosts.map((h) => [
    h.name,
    h.routes.map((r) => {
      const uri = r.match?.uri ?? { prefix: '/' };
      return `${'exact' in uri ? `=${uri.exact}` : uri.prefix} -> ${r.route.destination.host}`;
    }),
  ]);

describe('binding VirtualServices to a gateway proxy', () => {
  it('gives each shared host a virtual host `host:port` with the routes in order', () => {
    const bound = bindGatewayRoutes(
      PROXY,
      [GW],
      [
        vs('vs', {
          hosts: ['Httpbin.Example'],
          gateways: ['gw'],
          http: [
            { match: [{ uri: { prefix: '/a' } }, { uri: { exact: '/b' } }], route: to('a') },
            { route: to('b') },
          ],
        }),
      ],
    );
    assert.deepEqual(summary(bound), [
      [
        'httpbin.example:80',
        [
          '/a -> a.load.svc.cluster.local',
          '=/b -> a.load.svc.cluster.local',
          '/ -> b.load.svc.cluster.local',
        ],
      ],
    ]);
    assert.deepEqual([bound[0]?.domain, bound[0]?.routes[0]?.serverPort], ['httpbin.example', 80]);
  });

  it('binds nothing when the selector misses the proxy, the VirtualService names another gateway, or hides from the proxy', () => {
    const other = gateway('other', { selector: { istio: 'eastwestgateway' }, servers: [server(['*'])] });
    const cases: [GatewayConfig, Record<string, unknown>][] = [
      [other, { hosts: ['a.example'], gateways: ['other'], http: [{ route: to('a') }] }],
      [GW, { hosts: ['a.example'], gateways: ['other'], http: [{ route: to('a') }] }],
      [GW, { hosts: ['a.example'], http: [{ route: to('a') }] }],
      [GW, { hosts: ['a.example'], gateways: ['gw'], exportTo: ['.'], http: [{ route: to('a') }] }],
      [
        gateway('gw', { servers: [server(['b.example'])] }),
        { hosts: ['a.example'], gateways: ['gw'], http: [{ route: to('a') }] },
      ],
      [
        gateway('gw', { servers: [server(['*'], 443)] }),
        { hosts: ['a.example'], gateways: ['gw'], http: [{ route: to('a') }] },
      ],
      [
        GW,
        {
          hosts: ['a.example'],
          gateways: ['gw'],
          http: [{ match: [{ gateways: ['load/elsewhere'] }], route: to('a') }],
        },
      ],
      [GW, { hosts: ['a.example'], gateways: ['gw'], http: [{ match: [{ port: 443 }], route: to('a') }] }],
    ];
    for (const [g, spec] of cases)
      assert.deepEqual(bindGatewayRoutes(PROXY, [g], [vs('vs', spec)]), [], JSON.stringify(spec));
    // The same VirtualService is bound once the selector has the proxy's labels.
    assert.equal(
      bindGatewayRoutes(
        PROXY,
        [GW],
        [vs('vs', { hosts: ['a.example'], gateways: ['gw'], http: [{ route: to('a') }] })],
      ).length,
      1,
    );
  });

  it('stops after a catch-all; merges a host shared by two VirtualServices, oldest first, catch-alls last', () => {
    const older = vs(
      'older',
      { hosts: ['a.example'], gateways: ['gw'], http: [{ route: to('one') }, { route: to('never') }] },
      '2026-11-28T09:00:00Z',
    );
    const newer = vs('newer', {
      hosts: ['a.example', '*.example'],
      gateways: ['load/gw'],
      http: [{ match: [{ uri: { prefix: '/x' } }], route: to('two') }],
    });
    // A wildcard host is a virtual host of its own: Envoy prefers the exact one for a.example.
    assert.deepEqual(summary(bindGatewayRoutes(PROXY, [GW], [newer, older])), [
      ['*.example:80', ['/x -> two.load.svc.cluster.local']],
      ['a.example:80', ['/x -> two.load.svc.cluster.local', '/ -> one.load.svc.cluster.local']],
    ]);
  });

  it("a server with no Service port matching binds at its own number (the listener's 8080)", () => {
    const direct = gateway('gw', { servers: [server(['*'], 8080)] });
    const bound = bindGatewayRoutes(
      { ...PROXY, servicePorts: [] },
      [direct],
      [vs('vs', { hosts: ['a.example'], gateways: ['gw'], http: [{ route: to('a') }] })],
    );
    assert.deepEqual(summary(bound), [['a.example:8080', ['/ -> a.load.svc.cluster.local']]]);
  });
});
