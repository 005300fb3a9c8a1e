import { spawn } from 'node:child_process';
import type { Server } from 'node:net';
import { join } from 'node:path';

export interface ListenRequest {
  host: string;
  ports: number[];
  backlog: number;
}
export type ListenReply = { port: number } | { port: number; error: string };

const HELPER = join(import.meta.dirname, 'netns-listen-helper.ts');
/** A helper that has not answered by then is stuck (a namespace that is gone, a tool missing). */
const HELPER_TIMEOUT_MS = 10_000;

/**
 * Listening sockets on `host`'s ports inside the network namespace at `netnsPath` (what istio-cni
 * hands ztunnel with AddWorkload), bound with SO_REUSEPORT and `backlog`: a helper is run in the
 * namespace, binds them and passes them back over Node's IPC channel.
 *
 * Each socket arrives inside a carrier Server that Node has already set accepting; `adopt` must
 * move it to the real server (server.listen(carrier)) at once, in the same tick: a connection the
 * carrier accepted in a later turn of the event loop would have no handler and hang its client.
 * Rejects if any port cannot be bound (the caller closes what it adopted).
 */
export function listenInNetns(
  netnsPath: string,
  request: ListenRequest,
  adopt: (port: number, carrier: Server) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'setpriv',
      ['--pdeathsig', 'KILL', 'nsenter', `--net=${netnsPath}`, '--', process.execPath, HELPER],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
    );
    const received = new Set<number>();
    const errors: string[] = [];
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, HELPER_TIMEOUT_MS);
    child.on('message', (reply: ListenReply, handle?: Server) => {
      if ('error' in reply) errors.push(`${String(reply.port)}: ${reply.error}`);
      else if (handle) {
        adopt(reply.port, handle);
        received.add(reply.port);
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const missing = request.ports.filter((p) => !received.has(p));
      if (errors.length === 0 && missing.length === 0) {
        resolve();
        return;
      }
      const why =
        errors.length > 0
          ? errors.join('; ')
          : `the helper exited (code ${String(code)}, signal ${String(signal)}) without ports ${missing.join(',')}: ${stderr.trim()}`;
      reject(new Error(`cannot listen on ${request.host} in ${netnsPath}: ${why}`));
    });
    child.send(request);
  });
}
