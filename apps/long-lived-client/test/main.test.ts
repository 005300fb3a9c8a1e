import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { lifeLinesOf, parseLongLivedConfig } from '../long-lived-config.ts';

/** What a config is refused for ('' when it is taken). */
const problemOf = (v: ReturnType<typeof parseLongLivedConfig>): string => (typeof v === 'string' ? v : '');

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

test("the pod's client: connections held until SIGTERM, then one result line with Unix-ms times, exit 0", async (t) => {
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.on('data', () => s.write('HTTP/1.1 204 No Content\r\n\r\n'));
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const port = (server.address() as { port: number }).port;
  const before = Date.now();
  const child = execa(process.execPath, [MAIN], {
    env: {
      LONG_LIVED: JSON.stringify({
        targets: [{ host: '127.0.0.1', port, pod: 'p', node: 'n' }],
        count: 2,
        intervalMs: 50,
      }),
    },
    reject: false,
  });
  // Both connections open, then one is reset by the server: the client reconnects that slot.
  while (sockets.length < 2) await new Promise((r) => setTimeout(r, 20));
  sockets[0]?.resetAndDestroy();
  while (sockets.length < 3) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGTERM');
  const { exitCode, stdout } = await child;
  assert.equal(exitCode, 0);
  const lives = lifeLinesOf(stdout.split('\n'));
  assert.ok(lives, stdout);
  assert.deepEqual(lives.map((l) => [l.slot, l.generation, l.end]).sort(), [
    [0, 0, 'reset'],
    [0, 1, 'open'],
    [1, 0, 'open'],
  ]);
  for (const l of lives)
    assert.ok(l.openedAtMs >= before && l.openedAtMs <= Date.now(), String(l.openedAtMs));
  assert.ok(lives.every((l) => l.requestsFailed === 0 || l.end === 'reset'));
});

test('a config that means nothing: exit 2 with what is wrong, no connection tried', async () => {
  const run = await execa(process.execPath, [MAIN], {
    env: { LONG_LIVED: '{"targets":[],"count":2,"intervalMs":50}' },
    reject: false,
  });
  assert.equal(run.exitCode, 2);
  assert.match(run.stderr, /Expected LONG_LIVED\.targets to be a non-empty list/);
  const target = [{ host: 'h', port: 1, pod: 'p', node: 'n' }];
  assert.match(problemOf(parseLongLivedConfig('nope')), /to be JSON/);
  assert.match(
    problemOf(parseLongLivedConfig(JSON.stringify({ targets: target, count: 0, intervalMs: 50 }))),
    /count/,
  );
  assert.match(
    problemOf(parseLongLivedConfig(JSON.stringify({ targets: target, count: 1, intervalMs: 1 }))),
    /intervalMs/,
  );
  assert.deepEqual(parseLongLivedConfig(JSON.stringify({ targets: target, count: 1, intervalMs: 50 })), {
    targets: target,
    count: 1,
    intervalMs: 50,
  });
  assert.equal(lifeLinesOf(['nothing']), undefined);
});
