import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, ListenOptions, Socket } from 'node:net';
import { closeOnBadLine, createLineDecoder } from './json-lines.ts';

/** A connection that has greeted the server: discovery's subscriber, the node agent's ztunnel instance. */
export interface JsonLinesPeer {
  readonly socket: Socket;
}

/**
 * A protocol served over JSON lines (json-lines.ts): what the server does with each connection's
 * messages. Every message is first offered to `greet`; a message that is not a greeting goes to
 * `onMessage` once the connection has greeted, and is ignored before.
 */
export interface JsonLinesServerOptions<P extends JsonLinesPeer> {
  /** Where to listen: `{ host, port }` for TCP, `{ path }` for a Unix socket. */
  listen: ListenOptions;
  /** The protocol's name in badLinesByProtocol. */
  protocol: string;
  /** The peer `message` introduces, if it is this protocol's greeting in a version it speaks. */
  greet(message: Record<string, unknown>, socket: Socket): P | undefined;
  /** A peer has greeted and is now among `peers()`: send it what it starts with. */
  onGreeted(peer: P): void;
  /** A message other than a greeting from a peer that has greeted (its answers). */
  onMessage(message: Record<string, unknown>, peer: P): void;
  /** A peer's connection closed, for any reason, and it has left `peers()`: settle what waits on it. */
  onClosed(peer: P): void;
}

export interface JsonLinesServer<P extends JsonLinesPeer> {
  /** `net.Server.address()`: the bound port for TCP (port 0), the path for a Unix socket. */
  address(): AddressInfo | string | null;
  /** The peers whose connections are open, in the order they greeted (the last is the newest). */
  peers(): P[];
  /** Closes every peer's connection, stops listening, resolves once the listener has closed. */
  close(): Promise<void>;
  /** As close(), and also closes the connections that have not greeted. */
  destroy(): Promise<void>;
}

/**
 * The skeleton both line-protocol servers (mesh/discovery, mesh/node-agent) share: listen, decode
 * each connection's lines, close a connection that sends garbage while serving the others (as
 * closeOnBadLine counts it), and track the connections that have greeted. A connection that greets
 * again adds a second peer; the first stays until the server closes (neither client greets twice).
 */
export async function startJsonLinesServer<P extends JsonLinesPeer>(
  options: JsonLinesServerOptions<P>,
): Promise<JsonLinesServer<P>> {
  const peers = new Set<P>();
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    let peer: P | undefined;
    const onLine = (message: Record<string, unknown>): void => {
      const greeted = options.greet(message, socket);
      if (greeted) {
        peer = greeted;
        peers.add(greeted);
        options.onGreeted(greeted);
      } else if (peer) options.onMessage(message, peer);
    };
    socket.on('data', createLineDecoder(onLine, closeOnBadLine(socket, options.protocol)));
    socket.on('error', () => undefined); // the close handler below does the bookkeeping
    socket.on('close', () => {
      connections.delete(socket);
      if (!peer) return;
      peers.delete(peer);
      options.onClosed(peer);
    });
  });
  server.listen(options.listen);
  await once(server, 'listening');

  let closing: Promise<void> | undefined;
  const stop = async (sockets: Iterable<Socket>): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    closing ??= new Promise<void>((resolve) => {
      server.once('close', resolve);
      server.close();
    });
    await closing;
  };
  return {
    address: () => server.address(),
    peers: () => [...peers],
    close: () => stop([...peers].map((p) => p.socket)),
    destroy: () => stop([...connections]),
  };
}
