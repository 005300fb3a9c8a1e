// A connection storm against a saturated gateway, as k6 opens -c 1000 on a machine with many cores:
// the gateway (its own process, each poll of its event loop kept ~40 ms long as a saturated one's
// is) already serves 300 closed-loop connections when 1,000 more open at once. Every connection
// must get its first answer within 20 s and every request must succeed. With one listen socket
// (ACCEPTOR_SOCKETS=1) a Node gateway accepts one connection per poll, ~20 a second here, and most
// of the storm waits in the kernel's accept queue past the deadline (lib/acceptors.ts says why);
// Envoy accepts everything pending per socket event.
// The bound is set between the two mechanisms, not at this machine's speed: with the acceptors the
// slowest first answer measured here was 2.1-7.0 s (9 runs; once, in a fresh-clone CI run on a slow
// moment of this VM, 122 connections took over 8 s, the earlier bound); one socket needs 50-100 s
// for the storm.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { it } from 'node:test';
import { PROJECT_ROOT } from '../../../harness/paths.ts';
import { spawnNodeProcess } from '../../../lib/test/node-process.ts';

const BUSY = 300;
const STORM = 1000;
const STORM_AT_MS = 1500;
const END_AT_MS = 22_000;
const FIRST_ANSWER_WITHIN_MS = 20_000;

interface ClientResult {
  firstAnswerMs?: number;
  ok: number;
  failed: string[];
}

/** One keep-alive connection sending /status/418 back to back until `endAt` (performance.now()). */
function runClient(port: number, endAt: number): Promise<ClientResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const startedAt = performance.now();
  const result: ClientResult = { ok: 0, failed: [] };
  return new Promise((resolve) => {
    const finish = (): void => {
      agent.destroy();
      resolve(result);
    };
    const next = (): void => {
      if (performance.now() >= endAt) {
        finish();
        return;
      }
      const req = request(
        { host: '127.78.0.2', port, path: '/status/418', agent, timeout: FIRST_ANSWER_WITHIN_MS },
        (res) => {
          res.resume();
          res.on('end', () => {
            result.firstAnswerMs ??= performance.now() - startedAt;
            if (res.statusCode === 418) result.ok++;
            else result.failed.push(`status ${String(res.statusCode)}`);
            next();
          });
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`no answer within ${String(FIRST_ANSWER_WITHIN_MS)} ms`)),
      );
      req.on('error', (err) => {
        result.failed.push(err.message);
        finish(); // a connection that failed once is what the test reports; it does not retry
      });
      req.end();
    };
    next();
  });
}

it('a storm of 1,000 new connections on a busy gateway: every connection answered within 20 s', async (t) => {
  const upstream = spawnNodeProcess(join(PROJECT_ROOT, 'apps/fault-server/main.ts'), {
    LOCAL_BIND_ADDRESS: '127.78.0.1',
    PORT: '8080',
    // go-httpbin closes a connection idle for 5 s; the gateway, like Envoy, keeps it (idle timeout
    // 1 h), and a request it puts on one as the close arrives ends 503 UC: the keep-alive race. The
    // storm leaves connections idle that long, so with 5 s the test would also see that race (it did,
    // 22 of them on a slower machine); it is about accepting, so the upstream keeps its connections.
    IDLE_TIMEOUT_MS: '60000',
  });
  t.after(() => upstream.child.kill('SIGKILL'));
  await upstream.waitForLine(/fault-server listening/);
  const upstreamAddress = /address=(\S+)/.exec(
    upstream.lines.find((l) => l.includes('listening')) ?? '',
  )?.[1];
  assert.ok(upstreamAddress, 'httpbin printed its address');
  const gateway = spawnNodeProcess(join(PROJECT_ROOT, 'mesh/gateway/test/storm-gateway.fixture.ts'), {
    UPSTREAM: upstreamAddress,
    GATEWAY_HOST: '127.78.0.2',
    SATURATE_MS: '40',
    ...(process.env['ACCEPTOR_SOCKETS'] ? { ACCEPTOR_SOCKETS: process.env['ACCEPTOR_SOCKETS'] } : {}),
  });
  t.after(() => gateway.child.kill('SIGKILL'));
  await gateway.waitForLine(/^listening \d+/);
  const port = Number(
    /^listening (\d+)/.exec(gateway.lines.find((l) => l.startsWith('listening')) ?? '')?.[1],
  );
  const start = performance.now();
  const busy = Array.from({ length: BUSY }, () => runClient(port, start + END_AT_MS));
  await new Promise((resolve) => setTimeout(resolve, STORM_AT_MS));
  const storm = Array.from({ length: STORM }, () => runClient(port, start + END_AT_MS));
  const results = await Promise.all([...busy, ...storm]);
  const failed = results.flatMap((r) => r.failed);
  const unanswered = results.filter((r) => r.firstAnswerMs === undefined).length;
  const slowest = Math.max(...results.map((r) => r.firstAnswerMs ?? Infinity));
  t.diagnostic(
    `${String(results.reduce((n, r) => n + r.ok, 0))} requests answered; slowest first answer ${slowest.toFixed(0)} ms; ${String(unanswered)} connections unanswered`,
  );
  assert.equal(unanswered, 0, `connections never answered (failures: ${[...new Set(failed)].join('; ')})`);
  assert.deepEqual(failed, []);
});
