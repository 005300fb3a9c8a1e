import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { TYPE_URL } from './envoy-protos.ts';
import { buildNetworkingSnapshot } from './networking/index.ts';
import type { IstioObject } from './networking/index.ts';
import type { ProtoObject } from './proto-values.ts';
import { proxyNodeId } from './proxy-node.ts';
import type { ProxyNode } from './proxy-node.ts';
import { routerResources } from './router-config.ts';

const GATEWAY_POD = { namespace: 'istio-system', name: 'istio-ingressgateway-abc' };
const NODE: ProxyNode = {
  id: proxyNodeId({
    type: 'router',
    ip: '10.0.0.10',
    podName: GATEWAY_POD.name,
    namespace: GATEWAY_POD.namespace,
  }),
  type: 'router',
  ip: '10.0.0.10',
  podName: GATEWAY_POD.name,
  namespace: GATEWAY_POD.namespace,
  metadata: {},
};

const workload = (name: string, namespace: string, ip: string, services: string[]): WorkloadEntry => ({
  uid: `uid-${name}`,
  name,
  namespace,
  serviceAccount: 'sa',
  node: 'node-1',
  podIp: ip,
  status: 'HEALTHY',
  protocol: 'TCP',
  capacity: 1,
  services,
});

const SNAPSHOT: DiscoverySnapshot = {
  workloads: [
    workload(GATEWAY_POD.name, GATEWAY_POD.namespace, '10.0.0.10', ['istio-system/istio-ingressgateway']),
    workload('httpbin-1', 'load', '10.0.1.1', ['load/httpbin', 'load/multi']),
    workload('httpbin-a', 'default', '10.0.2.1', ['default/httpbin']),
  ],
  services: [
    {
      namespace: 'istio-system',
      name: 'istio-ingressgateway',
      vip: '10.96.0.1',
      ports: [{ port: 80, targetPort: 8080 }],
    },
    { namespace: 'load', name: 'httpbin', vip: '10.96.0.2', ports: [{ port: 8000, targetPort: 8080 }] },
    {
      namespace: 'load',
      name: 'multi',
      vip: '10.96.0.3',
      ports: [
        { port: 8000, targetPort: 8080 },
        { port: 9000, targetPort: 9090 },
      ],
    },
    { namespace: 'default', name: 'httpbin', vip: '10.96.0.4', ports: [{ port: 8000, targetPort: 8080 }] },
  ],
};

const LABELS = { app: 'istio-ingressgateway', istio: 'ingressgateway' };

/** The harness's objects: Gateway `gw` and VirtualService `vs` in namespace `load`. */
function harnessRouting(
  vsSpec: Record<string, unknown> = {},
  selector: Record<string, string> = { istio: 'ingressgateway' },
) {
  const gateways: IstioObject[] = [
    {
      namespace: 'load',
      name: 'gw',
      spec: {
        selector,
        servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['httpbin.example'] }],
      },
    },
  ];
  const virtualServices: IstioObject[] = [
    {
      namespace: 'load',
      name: 'vs',
      spec: {
        hosts: ['httpbin.example'],
        gateways: ['load/gw'],
        http: [
          { route: [{ destination: { host: 'httpbin.load.svc.cluster.local', port: { number: 8000 } } }] },
        ],
        ...vsSpec,
      },
    },
  ];
  return buildNetworkingSnapshot({ gateways, virtualServices, pods: [{ ...GATEWAY_POD, labels: LABELS }] });
}

function routeConfig(resources: ReturnType<typeof routerResources>) {
  const [config] = resources[TYPE_URL.route] ?? [];
  return config as {
    virtual_hosts: { name: string; domains: string[]; routes: ProtoObject[] }[];
  } & ProtoObject;
}

/** The Service clusters (connect_originate, there with HBONE, left out). */
const serviceClusters = (resources: ReturnType<typeof routerResources>): unknown[] =>
  (resources[TYPE_URL.cluster] ?? []).map((r) => r['name']).filter((n) => n !== 'connect_originate');

const DEFAULT_HOST = { name: '*:80', domains: ['*'] };

describe('router config: Gateway and VirtualService routes', () => {
  it("gives the harness's VirtualService a virtual host before the default one, with its own EDS cluster", () => {
    const { snapshot, problems } = harnessRouting({
      http: [
        {
          match: [{ uri: { prefix: '/status' } }],
          route: [{ destination: { host: 'httpbin.load.svc.cluster.local', port: { number: 8000 } } }],
          retries: { attempts: 5, retryOn: 'reset,503' },
          timeout: '3s',
        },
      ],
    });
    assert.deepEqual(problems, []);
    const resources = routerResources(
      { ...NODE, metadata: { DISABLE_HBONE_SEND: 'true' } },
      SNAPSHOT,
      snapshot,
    );
    const config = routeConfig(resources);
    assert.equal(config['ignore_port_in_host_matching'], true);
    assert.deepEqual(
      config.virtual_hosts.map((v) => ({ name: v.name, domains: v.domains })),
      [{ name: 'httpbin.example:80', domains: ['httpbin.example'] }, DEFAULT_HOST],
    );
    const cluster = 'outbound|8000||httpbin.load.svc.cluster.local';
    assert.deepEqual(config.virtual_hosts[0]?.routes, [
      {
        match: { prefix: '/status', case_sensitive: { value: true } },
        route: {
          cluster,
          timeout: { seconds: '3', nanos: 0 },
          max_grpc_timeout: { seconds: '3', nanos: 0 },
          retry_policy: {
            retry_on: 'reset,retriable-status-codes',
            num_retries: { value: 5 },
            retriable_status_codes: [503],
            retry_host_predicate: [
              {
                name: 'envoy.retry_host_predicates.previous_hosts',
                typed_config: {
                  '@type':
                    'type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate',
                },
              },
            ],
            host_selection_retry_max_attempts: '5',
          },
        },
        metadata: {
          filter_metadata: {
            istio: {
              fields: {
                config: { stringValue: '/apis/networking.istio.io/v1/namespaces/load/virtual-service/vs' },
              },
            },
          },
        },
        decorator: { operation: 'httpbin.load.svc.cluster.local:8000/status*' },
      },
    ]);
    // The default route's cluster first, then the VirtualService's; endpoints on the targetPort.
    assert.deepEqual(serviceClusters(resources), [
      'outbound|8000||httpbin.default.svc.cluster.local',
      cluster,
    ]);
    const assignment = resources[TYPE_URL.endpoint]?.find((e) => e['cluster_name'] === cluster);
    assert.deepEqual(
      JSON.stringify(assignment?.['endpoints']),
      JSON.stringify([
        {
          lb_endpoints: [
            {
              endpoint: { address: { socket_address: { address: '10.0.1.1', port_value: 8080 } } },
              load_balancing_weight: { value: 1 },
            },
          ],
        },
      ]),
    );
  });

  it("unset retries are Istio's default policy; attempts 0 none", () => {
    const retryOf = (spec: Record<string, unknown>) => {
      const http = [{ route: [{ destination: { host: 'httpbin' } }], ...spec }];
      const config = routeConfig(routerResources(NODE, SNAPSHOT, harnessRouting({ http }).snapshot));
      return (config.virtual_hosts[0]?.routes[0]?.['route'] as ProtoObject)['retry_policy'] as
        ProtoObject | undefined;
    };
    assert.deepEqual(
      [retryOf({})?.['retry_on'], retryOf({})?.['num_retries']],
      ['connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes', { value: 2 }],
    );
    assert.equal(retryOf({ retries: { attempts: 0 } }), undefined);
    assert.deepEqual(retryOf({ retries: { attempts: 1, perTryTimeout: '500ms' } })?.['per_try_timeout'], {
      seconds: '0',
      nanos: 500_000_000,
    });
  });

  it("resolves a short host in the VirtualService's namespace; no port: the Service's only one", () => {
    const http = [{ route: [{ destination: { host: 'httpbin' } }] }];
    const resources = routerResources(NODE, SNAPSHOT, harnessRouting({ http }).snapshot);
    const route = routeConfig(resources).virtual_hosts[0]?.routes[0]?.['route'] as ProtoObject;
    assert.equal(route['cluster'], 'outbound|8000||httpbin.load.svc.cluster.local');
    assert.ok(serviceClusters(resources).includes('outbound|8000||httpbin.load.svc.cluster.local'));
  });

  it("no port and a Service of two: the server's port, a cluster the Service lacks (503 NC, as under istiod)", () => {
    const http = [{ route: [{ destination: { host: 'multi' } }] }];
    const resources = routerResources(NODE, SNAPSHOT, harnessRouting({ http }).snapshot);
    const route = routeConfig(resources).virtual_hosts[0]?.routes[0]?.['route'] as ProtoObject;
    assert.equal(route['cluster'], 'outbound|80||multi.load.svc.cluster.local');
    assert.deepEqual(serviceClusters(resources), ['outbound|8000||httpbin.default.svc.cluster.local']);
  });

  it('no virtual host for a Gateway whose selector misses the proxy, nor for a VirtualService bound elsewhere', () => {
    for (const { snapshot } of [
      harnessRouting({}, { istio: 'eastwestgateway' }),
      harnessRouting({ gateways: ['load/other'] }),
      harnessRouting({ gateways: ['gw'], exportTo: ['.'] }),
    ]) {
      const resources = routerResources(NODE, SNAPSHOT, snapshot);
      assert.deepEqual(
        routeConfig(resources).virtual_hosts.map((v) => v.name),
        ['*:80'],
      );
      assert.deepEqual(serviceClusters(resources), ['outbound|8000||httpbin.default.svc.cluster.local']);
    }
  });

  it('an unsupported http entry is skipped with its problem; the default route stays as it was', () => {
    const plain = routerResources(NODE, SNAPSHOT);
    const { snapshot, problems } = harnessRouting({
      http: [
        {
          route: [
            { destination: { host: 'httpbin' }, weight: 50 },
            { destination: { host: 'multi' }, weight: 50 },
          ],
        },
      ],
    });
    assert.deepEqual(problems, [
      'VirtualService load/vs http[0]: skipped: unsupported several weighted destinations (2)',
    ]);
    const resources = routerResources(NODE, SNAPSHOT, snapshot);
    assert.deepEqual(resources, plain);
    assert.deepEqual(
      routeConfig(resources).virtual_hosts.map((v) => [v.name, v.routes.map((r) => r['name'])]),
      [['*:80', ['httpbin.default']]],
    );
  });

  it("a VirtualService for `*` takes the default host's place (Envoy refuses a domain twice)", () => {
    const gateways: IstioObject[] = [
      {
        namespace: 'load',
        name: 'gw',
        spec: { servers: [{ port: { number: 80, protocol: 'HTTP' }, hosts: ['*'] }] },
      },
    ];
    const virtualServices: IstioObject[] = [
      {
        namespace: 'load',
        name: 'vs',
        spec: { hosts: ['*'], gateways: ['gw'], http: [{ route: [{ destination: { host: 'httpbin' } }] }] },
      },
    ];
    const { snapshot } = buildNetworkingSnapshot({ gateways, virtualServices, pods: [] });
    const config = routeConfig(routerResources(NODE, SNAPSHOT, snapshot));
    assert.deepEqual(
      config.virtual_hosts.map((v) => [v.name, v.domains]),
      [['*:80', ['*']]],
    );
    assert.equal(
      (config.virtual_hosts[0]?.routes[0]?.['route'] as ProtoObject)['cluster'],
      'outbound|8000||httpbin.load.svc.cluster.local',
    );
  });
});
