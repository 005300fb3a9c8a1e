import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { test } from 'node:test';
import { createNetworkWorld, netnsUnavailable } from '../../../clusters/netns/network-world.ts';
import { listenInNetns } from '../netns-listeners.ts';

const skip = await netnsUnavailable();

/**
 * Run inside the pod's namespace: connects to ip:port over and over, from before anything listens
 * until `want` connections have each been greeted; a connection that is accepted but never greeted
 * within 3 s is reported as hung. Prints one JSON line.
 */
const CLIENT = `
const net = require('node:net');
const [ip, port, want] = process.argv.slice(1);
let greeted = 0, refused = 0;
const once = () => new Promise((resolve) => {
  const s = net.connect(Number(port), ip);
  const timer = setTimeout(() => { s.destroy(); resolve('hung'); }, 3000);
  s.once('data', () => { clearTimeout(timer); s.destroy(); resolve('greeted'); });
  s.once('error', () => { clearTimeout(timer); resolve('refused'); });
});
(async () => {
  const deadline = Date.now() + 15000;
  while (greeted < Number(want) && Date.now() < deadline) {
    const r = await once();
    if (r === 'hung') { console.log(JSON.stringify({ greeted, refused, hung: true })); return; }
    if (r === 'greeted') greeted++; else { refused++; await new Promise((z) => setTimeout(z, 1)); }
  }
  console.log(JSON.stringify({ greeted, refused, hung: false }));
})();
`;

test(
  "listeners made inside a pod's namespace serve its address, with no connection lost while they change hands",
  { skip },
  async (t) => {
    const world = await createNetworkWorld({ nodes: 1 });
    t.after(() => {
      world.close();
    });
    const pod = await world.addPod(1, 'p');
    const [file = '', ...args] = pod.command([process.execPath, '-e', CLIENT, pod.ip, '8080', '200']);
    // The client dials from before the listener exists: its first connections land while the socket
    // passes from the helper to us, where a carrier accepting on its own would strand them.
    const client = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => client.kill('SIGKILL'));
    // Read from the start: the client may be done before both listener sets are, and Node resumes an
    // unread pipe at the child's exit, dropping what it said.
    const said = once(client.stdout, 'data') as Promise<[Buffer]>;
    const servers: Server[] = [];
    t.after(() => {
      for (const s of servers) s.close();
    });
    const greet = (): Server => createServer((c) => c.end('hello'));
    const first = greet();
    servers.push(first);
    await listenInNetns(pod.path, { host: pod.ip, ports: [8080], backlog: 128 }, (_port, carrier) => {
      first.listen(carrier, 128);
    });
    // A second set on the same address, as a new ztunnel binds beside the old one (SO_REUSEPORT).
    const second = greet();
    servers.push(second);
    await listenInNetns(pod.path, { host: pod.ip, ports: [8080], backlog: 128 }, (_port, carrier) => {
      second.listen(carrier, 128);
    });
    const [line] = await said;
    const result = JSON.parse(line.toString()) as { greeted: number; refused: number; hung: boolean };
    assert.equal(result.hung, false, `a connection was accepted and never served: ${line.toString()}`);
    assert.equal(result.greeted, 200);
  },
);

test('a port that cannot be bound in the namespace is an error naming it', { skip }, async (t) => {
  const world = await createNetworkWorld({ nodes: 1 });
  t.after(() => {
    world.close();
  });
  const pod = await world.addPod(1, 'p');
  // An address the pod's namespace does not have: the host's side of the uplink.
  await assert.rejects(
    listenInNetns(pod.path, { host: world.hostAddress, ports: [15008], backlog: 128 }, () => {
      assert.fail('nothing should be adopted');
    }),
    /cannot listen on 10\.\d+\.255\.1 in \/proc\/\d+\/ns\/net: 15008: .*EADDRNOTAVAIL/,
  );
});
