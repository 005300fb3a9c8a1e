import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { createNetworkWorld, netnsUnavailable } from '../network-world.ts';
import { firstCloses, parseWireCloses, startCloseCapture, wireCaptureUnavailable } from '../wire-closes.ts';

const skip = (await netnsUnavailable()) ?? (await wireCaptureUnavailable());

const CAPTURE = [
  '1795568921.961446 IP 10.201.1.2.15008 > 10.201.255.1.36088: Flags [F.], seq 86721632, ack 1, win 64, length 0',
  '1795568922.014239 IP 10.201.1.2.15008 > 10.201.255.1.36090: Flags [R.], seq 2670407342, ack 3, win 64, length 0',
  '1795568922.020000 IP 10.201.1.2.15008 > 10.201.255.1.36088: Flags [R], seq 86721633, win 0, length 0',
  '1795568922.030000 IP 10.201.1.2.15008 > 10.201.255.1.36092: Flags [FP.], seq 1:40, ack 1, win 64, length 39',
  'tcpdump: verbose output suppressed',
].join('\n');

test('parse: FIN, RST and FIN with data; other lines ignored', () => {
  const closes = parseWireCloses(CAPTURE);
  assert.deepEqual(
    closes.map((c) => [c.kind, c.to]),
    [
      ['FIN', '10.201.255.1:36088'],
      ['RST', '10.201.255.1:36090'],
      ['RST', '10.201.255.1:36088'],
      ['FIN', '10.201.255.1:36092'],
    ],
  );
  assert.equal(closes[0]?.wallMs, 1795568921961.446);
  assert.equal(closes[0].from, '10.201.1.2:15008');
});

test("first closes: a connection's RST after its FIN still counts as a FIN; the window bounds them", () => {
  const closes = parseWireCloses(CAPTURE);
  const all = firstCloses(closes, 0, Infinity);
  assert.deepEqual(all.map((c) => c.kind).sort(), ['FIN', 'FIN', 'RST']);
  // A window that starts after the first FIN of :36088: its RST is not its close.
  assert.deepEqual(
    firstCloses(closes, 1795568922000, Infinity).map((c) => c.to),
    ['10.201.255.1:36090', '10.201.255.1:36092'],
  );
});

test(
  "capture on the uplink: a server's close of an idle connection is a FIN, of one with unread bytes a RST",
  { skip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'wire-closes-'));
    const world = await createNetworkWorld({ nodes: 1 });
    t.after(() => {
      world.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const pod = await world.addPod(1, 'z');
    // Closes each connection 100 ms after accepting it, without reading it.
    const program =
      "require('net').createServer({pauseOnConnect:true},c=>setTimeout(()=>c.destroy(),100)).listen(15008,'0.0.0.0',()=>console.log('up'))";
    const [file = '', ...args] = pod.command([process.execPath, '-e', program]);
    const server = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => server.kill('SIGKILL'));
    await once(createInterface({ input: server.stdout }), 'line');
    const logPath = join(dir, 'closes.log');
    const capture = await startCloseCapture({
      inNs: (argv) => world.clusterCommand(argv),
      device: world.uplink,
      logPath,
    });
    const ended = (write: boolean): Promise<void> =>
      new Promise((resolve) => {
        const s = connect({ host: pod.ip, port: 15008 });
        s.on('connect', () => {
          if (write) s.write('unread');
        });
        s.on('error', () => undefined);
        s.on('close', () => {
          resolve();
        });
        s.resume();
        s.on('end', () => s.end());
      });
    await ended(false);
    await ended(true);
    await new Promise((r) => setTimeout(r, 200));
    await capture.stop();
    const closes = firstCloses(parseWireCloses(readFileSync(logPath, 'utf8')), 0, Infinity);
    assert.deepEqual(
      closes.map((c) => c.kind),
      ['FIN', 'RST'],
      readFileSync(logPath, 'utf8'),
    );
    assert.ok(closes.every((c) => c.from === `${pod.ip}:15008`));
  },
);
