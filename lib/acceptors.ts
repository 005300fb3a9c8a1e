import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * Listen sockets that accept a connection storm as fast as Envoy, Go or tokio servers do.
 *
 * Since libuv 1.45 (Node >= 20) a listening socket accepts ONE connection per poll of the event loop
 * (libuv commit 6c692ad1c, "unix: don't accept() connections in a loop"). A saturated Node server
 * handles up to 1,024 ready sockets per poll, so under load it accepts about ten connections a
 * second: 1,000 connections opened at once sit in the kernel's accept queue for minutes, their
 * requests time out, and each client that reconnects joins the back of the queue (the c=1000 stall).
 * Envoy accepts every pending connection on each socket event (listener.proto
 * `max_connections_to_accept_per_socket_event`: unset means all), as do Go's accept goroutine and
 * tokio's accept loop. The stand-in here: `count` sockets bound to the same address with SO_REUSEPORT,
 * which the kernel spreads new connections over; each poll accepts one from every socket that has
 * one pending, so a storm drains `count` times faster, and an idle socket costs nothing.
 */
export const DEFAULT_ACCEPTOR_SOCKETS = 256;

export interface Acceptors {
  address: AddressInfo;
  /**
   * Stops accepting on every socket at once (the listen sockets close now; connections already
   * accepted are the caller's to end).
   */
  close(): void;
}

export async function startAcceptors(options: {
  host: string;
  /** 0 picks a free port for the first socket; the others bind the same one. */
  port: number;
  backlog?: number;
  count?: number;
  /** Also in a cluster worker: each socket is this process's own (no handle sharing). */
  exclusive?: boolean;
  onConnection: (socket: Socket) => void;
}): Promise<Acceptors> {
  const count = options.count ?? DEFAULT_ACCEPTOR_SOCKETS;
  const servers: Server[] = [];
  const bind = async (port: number): Promise<AddressInfo> => {
    const server = createServer(options.onConnection);
    servers.push(server);
    server.listen({
      host: options.host,
      port,
      reusePort: true,
      ...(options.backlog === undefined ? {} : { backlog: options.backlog }),
      ...(options.exclusive ? { exclusive: true } : {}),
    });
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([err]) => Promise.reject(err as Error)),
    ]);
    return server.address() as AddressInfo;
  };
  const close = (): void => {
    // net.Server#close() closes the listen handle at once; its 'close' event would also wait for
    // every accepted connection, which belong to the caller here.
    for (const server of servers) if (server.listening) server.close();
  };
  try {
    const address = await bind(options.port);
    for (let i = 1; i < count; i++) await bind(address.port);
    return { address, close };
  } catch (err) {
    close();
    throw err;
  }
}
