// Real Envoy 1.40 (npm run tools) configured over ADS by our server: a listener arrives and serves, a
// new version replaces it, and a version Envoy refuses is NACKed with Envoy's reason while the last
// good one keeps serving.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { isHarnessError } from '../../../lib/index.ts';
import { ensureEnvoy } from '../../../lib/install/index.ts';
import { adsDynamicResources, staticCluster } from '../../pilot-agent/bootstrap.ts';
import { startAdsServer } from '../ads-server.ts';
import type { XdsMessage } from '../ads-server.ts';
import { TYPE_URL } from '../envoy-protos.ts';

const envoy = await ensureEnvoy({ write: () => undefined }).catch((err: unknown) => {
  if (isHarnessError(err)) return err.message;
  throw err;
});

/** An Istio node id (the server parses it: type~ip~pod.namespace~domain). */
const NODE = 'router~127.0.0.1~gateway-1.istio-system~istio-system.svc.cluster.local';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** A listener answering every request itself with `status` and `body` (a route's direct_response). */
function listener(port: number, status: number, body: string): XdsMessage {
  return {
    '@type': TYPE_URL.listener,
    name: 'direct',
    address: { socket_address: { address: '127.0.0.1', port_value: port } },
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type':
                'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
              stat_prefix: 'direct',
              route_config: {
                name: 'direct',
                virtual_hosts: [
                  {
                    name: 'all',
                    domains: ['*'],
                    routes: [
                      { match: { prefix: '/' }, direct_response: { status, body: { inline_string: body } } },
                    ],
                  },
                ],
              },
              http_filters: [
                {
                  name: 'envoy.filters.http.router',
                  typed_config: {
                    '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
                  },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** One GET on a connection of its own, its body (or the error). */
function getOnce(url: string): Promise<string> {
  return new Promise((resolve) => {
    // A new connection each time: a kept-alive one stays on the old listener while Envoy drains it
    // (a listener update hands new connections to the new version; old ones finish on the old).
    get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
    }).on('error', (err) => {
      resolve(String(err));
    });
  });
}

/** GET until the body is `want` (Envoy applies a push within a second), or fail after 10 s. */
async function untilBody(url: string, want: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = '';
  while (Date.now() < deadline) {
    last = await getOnce(url);
    if (last === want) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${url} answered ${JSON.stringify(last)}, not ${JSON.stringify(want)}`);
}

test(
  'Envoy takes its listener over ADS, takes the next version, and NACKs one it refuses',
  { skip: typeof envoy === 'string' ? envoy : false, timeout: 60_000 },
  async (t) => {
    if (typeof envoy === 'string') return;
    const port = await freePort();
    let listeners = [listener(port, 200, 'v1')];
    const ads = await startAdsServer({
      host: '127.0.0.1',
      port: 0,
      configFor: () => ({ [TYPE_URL.listener]: listeners, [TYPE_URL.cluster]: [] }),
    });
    t.after(() => ads.close());
    const dir = await mkdtemp(join(tmpdir(), 'ads-envoy-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const [adsHost = '', adsPort = ''] = ads.address.split(':');
    const bootstrap = {
      node: { id: NODE, cluster: 'istio-ingressgateway' },
      dynamic_resources: adsDynamicResources(),
      static_resources: {
        // The bootstrap's own xDS cluster, without its mTLS (this test's server is plain gRPC).
        clusters: [
          staticCluster({
            name: 'xds-grpc',
            address: { socket_address: { address: adsHost, port_value: Number(adsPort) } },
            http2: true,
          }),
        ],
      },
    };
    const config = join(dir, 'bootstrap.json');
    await writeFile(config, JSON.stringify(bootstrap));
    const proxy = execa(
      envoy.path,
      ['-c', config, '--concurrency', '1', '--disable-hot-restart', '-l', 'error'],
      {
        reject: false,
        forceKillAfterDelay: 2000,
      },
    );
    t.after(async () => {
      proxy.kill('SIGTERM');
      await proxy;
    });
    const url = `http://127.0.0.1:${String(port)}/`;
    await untilBody(url, 'v1');
    // Envoy's workers can serve a listener before its ACK reaches the server (the main thread writes
    // the ACK after the update is applied): a body seen is no ACK received yet, so wait for it.
    const ackedAfter = (before?: string) =>
      t.waitFor(
        () => {
          const version = ads.acked(NODE, TYPE_URL.listener);
          assert.ok(version !== undefined && version !== before, `a listener ACK after ${String(before)}`);
          return version;
        },
        { interval: 20, timeout: 10_000 },
      );
    const v1 = await ackedAfter();
    listeners = [listener(port, 200, 'v2')];
    ads.update();
    await untilBody(url, 'v2');
    const v2 = await ackedAfter(v1);
    ads.update(); // nothing changed: nothing sent, nothing to ACK

    // 99 is no HTTP status: Envoy's validation refuses the listener and keeps serving version 2.
    listeners = [listener(port, 99, 'v3')];
    ads.update();
    const deadline = Date.now() + 10_000;
    while (ads.nacks().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [nack] = ads.nacks();
    assert.ok(nack, 'a NACK');
    assert.equal(nack.node, NODE);
    assert.equal(nack.typeUrl, TYPE_URL.listener);
    assert.notEqual(nack.version, v2);
    assert.match(nack.message, /status/i, nack.message);
    t.diagnostic(`NACK: ${nack.message.slice(0, 200)}`);
    await untilBody(url, 'v2');
    assert.equal(ads.acked(NODE, TYPE_URL.listener), v2);
    assert.equal(ads.nacks().length, 1, 'an unchanged configuration is not re-sent');
  },
);
