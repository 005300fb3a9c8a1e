import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gatewayLogDir } from './envoy-log.fixture.ts';
import { readGatewayAccessLog } from './gateway-access-log.ts';

describe("the gateway's Envoy log after a run", () => {
  it('reads requests and failures, marks HBONE upstreams, joins the tunnels, derives idle times', async (t) => {
    const log = await readGatewayAccessLog(await gatewayLogDir(t));
    assert.deepEqual([log.requests, log.failures.length, log.tunnelFailures.length], [13, 12, 11]);
    assert.ok(log.failures.every((f) => f.isHbone === true));
    const [closed, ...refused] = log.failures;
    assert.equal(closed?.tunnel, undefined);
    assert.equal(closed?.connectionIdleMs, 96, '53.584 - (53.485 + 3 ms)');
    assert.ok(refused.every((f) => f.tunnel?.reason === 'tunnel_response:503'));
    // Each refused CONNECT was a new tunnel: the first request on its connection, idle unknown.
    assert.ok(refused.every((f) => f.connectionIdleMs === undefined && f.connectionAgeMs === 0));
  });

  it('finds nothing in a folder without a gateway log, or no folder', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-log-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    for (const d of [dir, join(dir, 'missing')])
      assert.deepEqual(await readGatewayAccessLog(d), {
        requests: 0,
        failures: [],
        tunnelFailures: [],
        kept: [],
      });
  });
});
