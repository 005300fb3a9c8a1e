import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHttpRoute } from './http-route.ts';
import { isVisibleTo, parseVirtualService } from './virtual-service.ts';

const route = (host: string, port?: number) => [
  { destination: { host, ...(port ? { port: { number: port } } : {}) } },
];

describe('VirtualService', () => {
  it('resolves hosts, gateways and destinations in its namespace; keeps http entries in order', () => {
    const { config, problems } = parseVirtualService({
      namespace: 'load',
      name: 'vs',
      creationTimestamp: '2026-11-28T10:00:00Z',
      spec: {
        hosts: ['httpbin.example', 'short'],
        gateways: ['load/gw', 'gw2', 'mesh'],
        http: [
          {
            name: 'api',
            match: [
              { name: 'v1', uri: { prefix: '/v1' } },
              { uri: { exact: '/status' }, ignoreUriCase: true },
            ],
            route: route('httpbin', 8000),
            retries: { attempts: 3, retryOn: '5xx,503', perTryTimeout: '2s' },
            timeout: '10s',
          },
          { route: route('httpbin.other.svc.cluster.local') },
        ],
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config, {
      namespace: 'load',
      name: 'vs',
      creationTimestamp: '2026-11-28T10:00:00Z',
      hosts: ['httpbin.example', 'short.load.svc.cluster.local'],
      gateways: ['load/gw', 'load/gw2', 'mesh'],
      exportTo: ['*'],
      http: [
        {
          name: 'api',
          matches: [
            { name: 'v1', uri: { prefix: '/v1' }, ignoreUriCase: false, gateways: [] },
            { uri: { exact: '/status' }, ignoreUriCase: true, gateways: [] },
          ],
          destination: { host: 'httpbin.load.svc.cluster.local', port: 8000 },
          retries: { attempts: 3, retryOn: '5xx,503', perTryTimeoutMs: 2000 },
          timeoutMs: 10_000,
        },
        { matches: [], destination: { host: 'httpbin.other.svc.cluster.local' } },
      ],
    });
  });

  it('skips an http entry it cannot translate, naming what it uses; the others stay', () => {
    const { config, problems } = parseVirtualService({
      namespace: 'load',
      name: 'vs',
      spec: {
        hosts: ['a.example'],
        gateways: ['gw'],
        http: [
          { route: [...route('a', 1), ...route('b', 2)] },
          { match: [{ uri: { regex: '/v[0-9]+' } }], route: route('a') },
          { match: [{ headers: { x: { exact: 'y' } } }], rewrite: { uri: '/' }, route: route('a') },
          { route: [{ destination: { host: 'a', subset: 'v1' } }] },
          { redirect: { uri: '/elsewhere' } },
          { route: route('a'), retries: { attempts: 2, retryOn: 'sometimes' } },
          { route: route('a'), timeout: 'soon' },
          { route: route('ok') },
        ],
        tcp: [{ route: route('a') }],
      },
    });
    assert.deepEqual(
      config?.http.map((h) => h.destination.host),
      ['ok.load.svc.cluster.local'],
    );
    assert.equal(problems[0], 'VirtualService load/vs: not served: tcp routes');
    assert.deepEqual(problems.slice(1, 6), [
      'VirtualService load/vs http[0]: skipped: unsupported several weighted destinations (2)',
      'VirtualService load/vs http[1]: skipped: unsupported match.uri.regex',
      'VirtualService load/vs http[2]: skipped: unsupported rewrite, match.headers',
      'VirtualService load/vs http[3]: skipped: unsupported destination.subset',
      'VirtualService load/vs http[4]: skipped: unsupported redirect, no route destination',
    ]);
    assert.match(
      problems[6] ?? '',
      /http\[5\]: skipped: unsupported retries\.retryOn: unknown retry_on condition "sometimes"/,
    );
    assert.equal(problems[7], 'VirtualService load/vs http[6]: skipped: unsupported timeout "soon"');
    assert.equal(problems.length, 8);
  });

  it('refuses a spec without hosts or with malformed lists, never throwing', () => {
    for (const spec of [
      undefined,
      'x',
      {},
      { hosts: [] },
      { hosts: 'a' },
      { hosts: ['a'], gateways: 'gw' },
      { hosts: [1] },
    ]) {
      const { config, problems } = parseVirtualService({ namespace: 'n', name: 'v', spec });
      assert.equal(config, undefined, JSON.stringify(spec));
      assert.equal(problems.length, 1, JSON.stringify(spec));
    }
    for (const raw of [
      null,
      3,
      { route: 'x' },
      { route: [{ destination: { host: 7 } }] },
      { match: 'x', route: route('a') },
    ])
      assert.ok(Array.isArray(parseHttpRoute(raw, 'n')), JSON.stringify(raw));
  });

  it('defaults to the mesh gateway and export everywhere; `.` is its own namespace, `~` none', () => {
    const vs = (spec: Record<string, unknown>) =>
      parseVirtualService({ namespace: 'load', name: 'v', spec: { hosts: ['a'], ...spec } }).config;
    assert.deepEqual(vs({})?.gateways, ['mesh']);
    const shared = vs({});
    const own = vs({ exportTo: ['.'] });
    const hidden = vs({ exportTo: ['~'] });
    assert.ok(shared && own && hidden);
    assert.equal(isVisibleTo(shared, 'istio-system'), true);
    assert.equal(isVisibleTo(own, 'istio-system'), false);
    assert.equal(isVisibleTo(own, 'load'), true);
    assert.equal(isVisibleTo(hidden, 'load'), false);
  });
});
