import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { trackChildPid, untrackChildPid } from './container-process.ts';

/**
 * A pod address whose sandbox is gone, as a cluster has it: once CNI DEL has deleted the pod's veth,
 * nothing answers its IP, neither a SYN-ACK nor a RST; packets are dropped and a client's connect
 * waits for its own timeout (Envoy's connect_timeout, 10 s in Istio) instead of being refused at once.
 *
 * On loopback without root there is no interface to delete and no filter to install, so the address
 * is held the way the kernel drops SYNs by itself: a helper process binds the pod's ports with a
 * listen backlog of 1 and then blocks its event loop forever, so it never accept()s; two connections
 * from here fill each accept queue, and with a full accept queue Linux drops every further SYN
 * (tcp_conn_request: LINUX_MIB_LISTENOVERFLOWS, "goto drop"). Clients then retransmit their SYN until
 * they give up, exactly as with a vanished IP. The ports it cannot know (anything the pod never
 * listened on) still refuse; the mesh only dials the known ones.
 *
 * SO_REUSEPORT on the helper's sockets lets it bind beside a ztunnel that still listens there (in-pod
 * mode); `vanishAddress` is called once ztunnel has closed them (DelWorkload), so the only listener
 * left on each port is the helper's.
 */
export interface VanishedAddress {
  /** Stops holding the address: the helper is killed and the plug connections closed. */
  release(): void;
}

/** A helper started ahead of time (Node's start takes ~100 ms); `vanish` is then a pipe round trip. */
export interface PendingVanish {
  /** Binds the ports and fills their accept queues: from now on the address answers nothing. */
  vanish(): Promise<VanishedAddress>;
  release(): void;
}

const HELPER = `
const net = require('node:net');
const [ip, ...ports] = process.argv.slice(1);
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  for (const port of ports) {
    net.createServer().on('error', (e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); })
      .listen({ host: ip, port: Number(port), backlog: 1, reusePort: true });
  }
  setImmediate(() => {
    process.stdout.write('bound\\n');
    // Never return to the event loop: nothing is ever accepted.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
});
`;

/** Connections that fill a backlog-1 accept queue (Linux queues backlog + 1). */
const PLUGS_PER_PORT = 2;
const PLUG_WAIT_MS = 50;

/** Starts the helper for `ip`; nothing is bound until `vanish()`. */
export async function prepareVanish(ip: string, ports: readonly number[]): Promise<PendingVanish> {
  const helper: ChildProcess = spawn(process.execPath, ['-e', HELPER, ip, ...ports.map(String)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = helper.pid;
  if (pid !== undefined) trackChildPid(pid);
  const plugs: Socket[] = [];
  const release = (): void => {
    for (const s of plugs) s.destroy();
    if (helper.exitCode === null) helper.kill('SIGKILL');
    if (pid !== undefined) untrackChildPid(pid);
  };
  const lines: string[] = [];
  const nextLine = (): Promise<string> =>
    lines.length > 0
      ? Promise.resolve(lines.shift() as string)
      : Promise.race([
          once(helper.stdout as NodeJS.ReadableStream, 'data').then(([d]) => {
            lines.push(...(d as Buffer).toString().split('\n').filter(Boolean));
            return lines.shift() ?? '';
          }),
          once(helper, 'exit').then(() => {
            throw new Error(`the address holder for ${ip} exited`);
          }),
        ]);
  try {
    if ((await nextLine()) !== 'ready') throw new Error(`the address holder for ${ip} did not start`);
  } catch (err) {
    release();
    throw err;
  }
  return {
    release,
    async vanish() {
      try {
        helper.stdin?.write('bind\n');
        const said = await nextLine();
        if (said !== 'bound') throw new Error(`the address holder for ${ip} said ${said}`);
        for (const port of ports) {
          for (let i = 0; i < PLUGS_PER_PORT; i++) {
            const plug = connect({ host: ip, port });
            plug.on('error', () => undefined); // a plug that cannot connect found the queue full already
            plugs.push(plug);
          }
        }
        // The kernel completes the plugs' handshakes at once; give them a moment to be queued.
        await new Promise((resolve) => setTimeout(resolve, PLUG_WAIT_MS));
      } catch (err) {
        release();
        throw err;
      }
      return { release };
    },
  };
}
