import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createNetworkWorld, netnsUnavailable } from '../network-world.ts';
import { dial } from './dial.ts';

const skip = await netnsUnavailable();

test(
  'pods in their own namespaces: reachable from the host and across nodes, gone when removed',
  { skip },
  async (t) => {
    const world = await createNetworkWorld({ nodes: 2 });
    t.after(() => {
      world.close();
    });
    const a = await world.addPod(1, 'a');
    const b = await world.addPod(2, 'b');
    assert.match(a.ip, new RegExp(`^10\\.${String(world.octet)}\\.1\\.\\d+$`));
    assert.match(b.ip, new RegExp(`^10\\.${String(world.octet)}\\.2\\.\\d+$`));
    // A server bound to the wildcard inside pod a: the way istio/ztunnel binds its ports.
    const program =
      "const s=require('net').createServer(c=>{c.end(c.remoteAddress)});s.listen(8080,'0.0.0.0',()=>console.log('up'))";
    const [file = '', ...args] = a.command([process.execPath, '-e', program]);
    const server = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => server.kill('SIGKILL'));
    await once(createInterface({ input: server.stdout }), 'line');
    assert.equal(
      await dial(a.ip, 8080),
      world.hostAddress,
      'the host reaches the pod; the pod sees the host side of the uplink',
    );
    const [bf = '', ...bargs] = b.command([
      process.execPath,
      '-e',
      `require('net').connect(8080,'${a.ip}').on('data',d=>{process.stdout.write(d);process.exit(0)})`,
    ]);
    const { stdout } = await promisify(execFile)(bf, bargs, { timeout: 5000 });
    assert.equal(stdout, b.ip, 'a pod on node 2 reaches node 1 with its own address (no NAT)');
    // CNI DEL while a process still listens in the namespace (as ztunnel's in-pod sockets do, which
    // keep the namespace alive): the veth goes, and with it the address.
    await a.remove();
    assert.equal(server.exitCode, null, 'the listener inside still runs');
    const after = await dial(a.ip, 8080, { timeoutMs: 800 });
    assert.notEqual(after, world.hostAddress, `a removed pod's address answers nothing (${after})`);
    server.kill('SIGKILL');
    await once(server, 'exit');
  },
);

test(
  'a process that dies with a world leaves no namespace, veth, route or holder behind',
  { skip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'netns-leak-'));
    t.after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const script = join(dir, 'world.mjs');
    writeFileSync(
      script,
      `import { createNetworkWorld } from ${JSON.stringify(join(import.meta.dirname, '..', 'network-world.ts'))};
const w = await createNetworkWorld({ nodes: 2 });
await w.addPod(1, 'x'); await w.addPod(2, 'y');
console.log(JSON.stringify({ hostLink: w.hostLink, octet: w.octet, holders: w.holders() }));
setInterval(() => {}, 1000);\n`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const made = JSON.parse(line) as { hostLink: string; octet: number; holders: number[] };
    assert.equal(made.holders.length, 3, 'one holder for the cluster, one per pod');
    assert.ok(existsSync(`/sys/class/net/${made.hostLink}`), 'the uplink exists while its maker lives');
    child.kill('SIGKILL'); // no handler runs: only the kernel can clean up
    await once(child, 'exit');
    const gone = async (): Promise<boolean> => {
      const routes = await promisify(execFile)('ip', ['route']);
      return (
        !existsSync(`/sys/class/net/${made.hostLink}`) &&
        made.holders.every((pid) => !existsSync(`/proc/${String(pid)}`)) &&
        !routes.stdout.includes(`10.${String(made.octet)}.0.0/16`)
      );
    };
    const until = Date.now() + 5000;
    while (!(await gone()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await gone(), `left behind after SIGKILL: ${made.hostLink}, holders ${made.holders.join(' ')}`);
  },
);

test('without root, why namespaces cannot be made names the uid', async () => {
  assert.equal(await netnsUnavailable(1000), 'network namespaces need root (running as uid 1000)');
});
