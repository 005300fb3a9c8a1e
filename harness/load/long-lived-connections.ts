import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Clock } from '../../lib/index.ts';

/** One target of a long-lived connection: a pod address (captured by its node's ztunnel). */
export interface LongLivedTarget {
  host: string;
  port: number;
  pod: string;
  node: string;
}

/** One TCP connection a slot used, from connect to its end. */
export interface ConnectionLife {
  slot: number;
  /** 0 = the slot's first (long-lived) connection; later ones are reconnects. */
  generation: number;
  pod: string;
  node: string;
  openedAtMs: number;
  endedAtMs?: number;
  /** How it ended: reset (ECONNRESET/EPIPE), closed (FIN), error code, or open at stop. */
  end: string;
  requestsOk: number;
  requestsFailed: number;
}

export interface LongLivedConnections {
  stop(): Promise<ConnectionLife[]>;
}

/**
 * `count` keep-alive HTTP/1.1 connections spread over `targets`, each sending `GET /status/204`
 * every `intervalMs` for the whole run, like a client with a long-lived pooled connection. Raw
 * sockets, because the end of a connection is the measurement: Node's HTTP client hides whether an
 * idle keep-alive socket got a FIN or a RST, a net.Socket does not ('end' = FIN, ECONNRESET = RST).
 * 204 has no body, so a response ends at its blank line. When a connection dies, the slot
 * reconnects at once (as the ztunnel blog says applications should); the new connection is the
 * next generation, and its failures are new-connection failures.
 */
export function startLongLivedConnections(options: {
  targets: LongLivedTarget[];
  count: number;
  intervalMs: number;
  clock: Clock;
}): LongLivedConnections {
  const { clock } = options;
  const lives: ConnectionLife[] = [];
  const sockets = new Set<Socket>();
  const state = { stopping: false };
  const isStopping = (): boolean => state.stopping;
  const loops: Promise<void>[] = [];

  /** One connection life: connect, request every interval until it ends; resolves when it ended. */
  const live = (slot: number, generation: number, target: LongLivedTarget): Promise<ConnectionLife> =>
    new Promise((resolve) => {
      const life: ConnectionLife = {
        slot,
        generation,
        pod: target.pod,
        node: target.node,
        openedAtMs: clock.now(),
        end: 'open',
        requestsOk: 0,
        requestsFailed: 0,
      };
      lives.push(life);
      const socket = connect({ host: target.host, port: target.port });
      sockets.add(socket);
      let inFlight = false;
      let buffered = '';
      let timer: NodeJS.Timeout | undefined;
      const send = (): void => {
        if (state.stopping || socket.destroyed) return;
        inFlight = true;
        socket.write(`GET /status/204 HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
      };
      const finish = (end: string): void => {
        if (life.endedAtMs !== undefined) return;
        life.endedAtMs = clock.now();
        life.end = state.stopping ? 'open' : end;
        if (inFlight && !state.stopping) life.requestsFailed += 1;
        clearTimeout(timer);
        sockets.delete(socket);
        socket.destroy();
        resolve(life);
      };
      socket.setNoDelay(true);
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('latin1');
        let end = buffered.indexOf('\r\n\r\n');
        while (end >= 0) {
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered)?.[1]);
          if (status === 204) life.requestsOk += 1;
          else life.requestsFailed += 1;
          buffered = buffered.slice(end + 4);
          inFlight = false;
          end = buffered.indexOf('\r\n\r\n');
          timer = setTimeout(send, options.intervalMs);
        }
      });
      socket.on('end', () => {
        finish('closed');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        finish(err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'reset' : (err.code ?? err.message));
      });
      socket.on('close', () => {
        finish('closed');
      });
    });

  for (let slot = 0; slot < options.count; slot++) {
    const target = options.targets[slot % options.targets.length];
    if (!target) break;
    loops.push(
      (async () => {
        for (let generation = 0; !state.stopping; generation++) {
          const life = await live(slot, generation, target);
          // A connection that never answered waits an interval before the next try (no tight loop).
          if (life.requestsOk === 0 && !isStopping())
            await clock.sleep(options.intervalMs).catch(() => undefined);
        }
      })(),
    );
  }
  return {
    async stop(): Promise<ConnectionLife[]> {
      state.stopping = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
      return lives;
    },
  };
}
