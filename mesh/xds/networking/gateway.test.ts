import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGateway, resolveServerPort, selectsProxy } from './gateway.ts';

const http = (number: number, hosts: string[], more: Record<string, unknown> = {}) => ({
  port: { number, name: 'http', protocol: 'HTTP' },
  hosts,
  ...more,
});

describe('Gateway', () => {
  it('keeps its selector and plain-HTTP servers, hosts sanitized as mergeGateways does', () => {
    const { config, problems } = parseGateway({
      namespace: 'load',
      name: 'gw',
      spec: {
        selector: { istio: 'ingressgateway' },
        servers: [http(80, ['./a.example', '*/b.example', 'other/c.example', 'd.example'])],
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config, {
      namespace: 'load',
      name: 'gw',
      selector: { istio: 'ingressgateway' },
      servers: [{ port: 80, hosts: ['load/a.example', 'b.example', 'other/c.example', 'd.example'] }],
    });
    assert.deepEqual(
      parseGateway({ namespace: 'n', name: 'g', spec: { servers: [http(80, ['*/*', 'x'])] } }).config
        ?.servers,
      [{ port: 80, hosts: ['*'] }],
    );
  });

  it('leaves out TLS, non-HTTP and malformed servers with a problem each; a spec that is not one whole', () => {
    const { config, problems } = parseGateway({
      namespace: 'load',
      name: 'gw',
      spec: {
        servers: [
          http(443, ['a.example'], { tls: { mode: 'SIMPLE', credentialName: 'cert' } }),
          { port: { number: 31400, name: 'tcp', protocol: 'TCP' }, hosts: ['*'] },
          { hosts: ['*'] },
          http(80, []),
          'nonsense',
          http(8080, ['ok.example']),
        ],
      },
    });
    assert.deepEqual(config?.servers, [{ port: 8080, hosts: ['ok.example'] }]);
    assert.deepEqual(problems, [
      'Gateway load/gw servers[0]: port 443 HTTP: unsupported tls; skipped',
      'Gateway load/gw servers[1]: port 31400 TCP: protocol "TCP" (only plain HTTP servers are served); skipped',
      'Gateway load/gw servers[2]: no port.number; skipped',
      'Gateway load/gw servers[3]: port 80 HTTP: no hosts; skipped',
      'Gateway load/gw servers[4]: not an object; skipped',
    ]);
    assert.deepEqual(parseGateway({ namespace: 'a', name: 'b', spec: 7 }), {
      problems: ['Gateway a/b: no spec; skipped'],
    });
    assert.deepEqual(
      parseGateway({ namespace: 'a', name: 'b', spec: { selector: { app: 1 } } }).config,
      undefined,
    );
  });

  it('selects a proxy whose labels hold the selector; no selector selects every gateway', () => {
    const labels = { app: 'istio-ingressgateway', istio: 'ingressgateway' };
    const gw = (selector: Record<string, string> | undefined) => ({
      namespace: 'n',
      name: 'g',
      selector,
      servers: [],
    });
    assert.equal(selectsProxy(gw({ istio: 'ingressgateway' }), labels), true);
    assert.equal(selectsProxy(gw(undefined), labels), true);
    assert.equal(selectsProxy(gw({ istio: 'eastwestgateway' }), labels), false);
    assert.equal(selectsProxy(gw({ istio: 'ingressgateway', extra: 'x' }), labels), false);
  });

  it("resolves a server's port through the gateway Service to its targetPort, else as written", () => {
    const ports = [
      { port: 80, targetPort: 8080 },
      { port: 443, targetPort: 8443 },
    ];
    assert.equal(resolveServerPort(80, ports), 8080);
    assert.equal(resolveServerPort(8080, ports), 8080);
    assert.equal(resolveServerPort(9000, []), 9000);
  });
});
