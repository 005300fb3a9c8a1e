import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { UpstreamConnectError, UPSTREAM_CONNECT_TIMEOUT_MS } from '../proxy/connect-upstream.ts';
import type { ConnectUpstream } from '../proxy/connect-upstream.ts';

export interface ConnectRequest {
  id: number;
  host: string;
  port: number;
}
export type ConnectReply = { id: number } | { id: number; code: string; message: string };

const HELPER = join(import.meta.dirname, 'netns-connect-helper.ts');

export interface NetnsConnector {
  /** connectUpstream's contract, the socket made inside the pod's namespace. */
  connect: ConnectUpstream;
  /** Ends the helper (the pod is gone); pending connects fail. Idempotent. */
  close(): void;
  /** The helper's pid: its /proc/<pid>/net/tcp is the pod's socket table. */
  readonly pid: number | undefined;
}

/**
 * App connections made from inside the pod's network namespace at `netnsPath` by a helper that
 * lives there while ztunnel serves the pod (netns-connect-helper.ts says why). A connect error
 * keeps the errno's code, so ztunnel's log says `connection failed: Connection refused (os error
 * 111)` as upstream's does. The helper dies with ztunnel (setpriv --pdeathsig).
 */
export function startNetnsConnector(netnsPath: string): NetnsConnector {
  const child = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', 'nsenter', `--net=${netnsPath}`, '--', process.execPath, HELPER],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const pending = new Map<number, { resolve: (s: Socket) => void; reject: (e: Error) => void }>();
  let next = 0;
  let ended: Error | undefined;
  const end = (why: Error): void => {
    ended ??= why;
    for (const p of pending.values()) p.reject(why);
    pending.clear();
  };
  child.on('message', (reply: ConnectReply, handle?: Socket) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if ('code' in reply) {
      const err = Object.assign(new Error(reply.message), { code: reply.code });
      waiter?.reject(err);
      return;
    }
    if (!handle) return;
    if (!waiter) {
      handle.destroy();
      return;
    }
    handle.setNoDelay(true);
    handle.allowHalfOpen = true;
    handle.resume();
    waiter.resolve(handle);
  });
  child.once('error', (err) => {
    end(new UpstreamConnectError('EIO', `namespace helper for ${netnsPath}: ${err.message}`));
  });
  child.once('exit', (code, signal) => {
    const why = stderr.trim().split('\n').at(-1) ?? '';
    end(
      new UpstreamConnectError(
        'EIO',
        `namespace helper for ${netnsPath} exited (${signal ?? String(code)})${why ? `: ${why}` : ''}`,
      ),
    );
  });
  return {
    connect: (options) =>
      new Promise((resolve, reject) => {
        if (ended) {
          reject(ended);
          return;
        }
        const id = ++next;
        const timeoutMs = options.timeoutMs ?? UPSTREAM_CONNECT_TIMEOUT_MS;
        const settle = (): void => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          pending.delete(id);
        };
        const onAbort = (): void => {
          settle();
          reject(new UpstreamConnectError('ECANCELED', 'connection cancelled'));
        };
        const timer = setTimeout(() => {
          settle();
          reject(new UpstreamConnectError('ETIMEDOUT', `connection timed out after ${String(timeoutMs)} ms`));
        }, timeoutMs);
        options.signal?.addEventListener('abort', onAbort, { once: true });
        pending.set(id, {
          resolve: (s) => {
            settle();
            resolve(s);
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        });
        child.send({ id, host: options.host, port: options.port } satisfies ConnectRequest);
      }),
    pid: child.pid,
    close: () => {
      end(new UpstreamConnectError('ECANCELED', 'the pod is gone'));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
