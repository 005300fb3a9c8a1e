// A Gateway and a VirtualService as the harness creates them on an existing cluster, translated by
// our control plane and served by the real Envoy 1.40: the VirtualService's host goes to its own
// destination cluster, other hosts to the default route, a path it does not match is 404 NR, and a
// change to the VirtualService reaches Envoy in the next push.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import type { IstioConfigView } from '../../control-plane/index.ts';
import { startGatewayScene } from './gateway-scene.ts';
import { envoyMissing } from './proxy-fixture.ts';

const GATEWAY: IstioConfigView = {
  namespace: 'default',
  name: 'gw',
  spec: {
    selector: { app: 'istio-ingressgateway' },
    servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['httpbin.example'] }],
  },
};

const virtualService = (http: unknown[]): IstioConfigView => ({
  namespace: 'default',
  name: 'vs',
  spec: { hosts: ['httpbin.example'], gateways: ['default/gw'], http },
});

const ONLY = {
  name: 'only',
  match: [{ uri: { prefix: '/only' } }],
  route: [{ destination: { host: 'echo' } }],
  retries: { attempts: 1, retryOn: '5xx', perTryTimeout: '2s' },
  timeout: '5s',
};

/** GET `path` with `Host: host` on a new connection: the status. */
function getAs(ingress: string, host: string, path: string): Promise<number> {
  const [address = '', port = ''] = ingress.split(':');
  return new Promise((resolve, reject) => {
    const req = request(
      { host: address, port: Number(port), path, agent: false, headers: { host } },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Envoy gateway: Gateway and VirtualService routes', { skip: envoyMissing, timeout: 60_000 }, () => {
  it("routes the VirtualService's host to its destination, the rest by default, and follows a change", async (t) => {
    const { mesh, proxy } = await startGatewayScene(t, '127.113.6', {
      mesh: {
        routing: { gateways: [GATEWAY], virtualServices: [virtualService([ONLY])] },
        services: [
          {
            namespace: 'default',
            name: 'echo',
            selector: { app: 'httpbin' },
            ports: [{ port: 9000, targetPort: 8080 }],
          },
        ],
      },
    });
    const logged = async (path: string) => {
      const entry = await proxy.logFor(path);
      const line = proxy.lines.find((l) => l.includes(`"path":"${path}"`)) ?? '';
      const { route_name: route, upstream_cluster: cluster } = JSON.parse(line) as Record<string, string>;
      return { status: entry.status, flags: entry.flags, route, cluster };
    };
    const echo = 'outbound|9000||echo.default.svc.cluster.local';
    assert.equal(await getAs(proxy.ingress, 'httpbin.example', '/only/1'), 200);
    assert.deepEqual(await logged('/only/1'), { status: 200, flags: [], route: 'only', cluster: echo });
    // istiod's ignore_port_in_host_matching: the port in Host does not matter.
    assert.equal(await getAs(proxy.ingress, 'httpbin.example:80', '/only/2'), 200);
    assert.equal((await logged('/only/2')).cluster, echo);
    // The VirtualService's host, a path it does not route: no route (404 NR), not the default route.
    assert.equal(await getAs(proxy.ingress, 'httpbin.example', '/elsewhere/1'), 404);
    assert.deepEqual((await logged('/elsewhere/1')).flags, ['NR']);
    // Any other host: the default route of the node metadata, unchanged.
    assert.equal(await getAs(proxy.ingress, 'other.example', '/any'), 200);
    assert.deepEqual(await logged('/any'), {
      status: 200,
      flags: [],
      route: 'httpbin.default',
      cluster: 'outbound|8000||httpbin.default.svc.cluster.local',
    });

    // A catch-all added to the VirtualService: pushed, and Envoy routes the path it 404'd.
    mesh.setRouting({
      gateways: [GATEWAY],
      virtualServices: [
        virtualService([
          ONLY,
          { name: 'rest', route: [{ destination: { host: 'httpbin', port: { number: 8000 } } }] },
        ]),
      ],
    });
    const deadline = performance.now() + 10_000;
    let status = 0;
    let path = '';
    for (let i = 2; status !== 200 && performance.now() < deadline; i++) {
      path = `/elsewhere/${String(i)}`;
      status = await getAs(proxy.ingress, 'httpbin.example', path);
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 200, 'the new route reached Envoy');
    assert.deepEqual(await logged(path), {
      status: 200,
      flags: [],
      route: 'rest',
      cluster: 'outbound|8000||httpbin.default.svc.cluster.local',
    });
    assert.deepEqual(mesh.cp.nacks(), []);
  });
});
