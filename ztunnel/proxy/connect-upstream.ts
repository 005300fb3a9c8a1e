import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** ztunnel's inbound connect timeout to the local app (src/proxy/inbound.rs via config.rs, 10 s). */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 10_000;

/** Errno values as Rust's io::Error prints them in ztunnel's access log. */
const OS_ERRORS: Readonly<Record<string, [string, number]>> = {
  ECONNREFUSED: ['Connection refused', 111],
  ECONNRESET: ['Connection reset by peer', 104],
  ETIMEDOUT: ['Connection timed out', 110],
  EHOSTUNREACH: ['No route to host', 113],
  EADDRNOTAVAIL: ['Cannot assign requested address', 99],
};

export class UpstreamConnectError extends Error {
  readonly errno: string;
  constructor(errno: string, message: string) {
    super(message);
    this.name = 'UpstreamConnectError';
    this.errno = errno;
  }
}

/** `connection failed: Connection refused (os error 111)`, as upstream's access log says it. */
export function describeConnectError(err: unknown): string {
  if (err instanceof UpstreamConnectError) return `connection failed: ${err.message}`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const known = OS_ERRORS[code];
  if (known) return `connection failed: ${known[0]} (os error ${String(known[1])})`;
  return `connection failed: ${err instanceof Error ? err.message : String(err)}`;
}

/** How ztunnel connects to an app: resolves only once connected; rejects on error or after `timeoutMs`. */
export type ConnectUpstream = (options: {
  host: string;
  port: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}) => Promise<Socket>;

/** A TCP connect from ztunnel's own network namespace. */
export const connectUpstream: ConnectUpstream = (options) => {
  const timeoutMs = options.timeoutMs ?? UPSTREAM_CONNECT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: options.host, port: options.port, noDelay: true, allowHalfOpen: true });
    const fail = (err: Error): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(err);
    };
    const onAbort = (): void => {
      fail(new UpstreamConnectError('ECANCELED', 'connection cancelled'));
    };
    const timer = setTimeout(() => {
      fail(new UpstreamConnectError('ETIMEDOUT', `connection timed out after ${String(timeoutMs)} ms`));
    }, timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      resolve(socket);
    });
  });
};
