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

/** What every connection of one set shares. */
interface ConnectionSet {
  clock: Clock;
  intervalMs: number;
  lives: ConnectionLife[];
  sockets: Set<Socket>;
  isStopping(): boolean;
}

/**
 * Counts the complete responses at the front of `buffered` into `life` (204: ok, anything else:
 * failed; a 204 has no body, so a response ends at its blank line); returns what is left and how
 * many there were.
 */
function takeResponses(buffered: string, life: ConnectionLife): { rest: string; responses: number } {
  let rest = buffered;
  let responses = 0;
  for (let end = rest.indexOf('\r\n\r\n'); end >= 0; end = rest.indexOf('\r\n\r\n')) {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(rest)?.[1]);
    if (status === 204) life.requestsOk += 1;
    else life.requestsFailed += 1;
    rest = rest.slice(end + 4);
    responses += 1;
  }
  return { rest, responses };
}

/** One connection life: connect, request every interval until it ends; resolves when it ended. */
function liveConnection(
  set: ConnectionSet,
  slot: number,
  generation: number,
  target: LongLivedTarget,
): Promise<ConnectionLife> {
  const { clock } = set;
  return new Promise((resolve) => {
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
    set.lives.push(life);
    const socket = connect({ host: target.host, port: target.port });
    set.sockets.add(socket);
    let inFlight = false;
    let buffered = '';
    let timer: NodeJS.Timeout | undefined;
    const send = (): void => {
      if (set.isStopping() || socket.destroyed) return;
      inFlight = true;
      socket.write(`GET /status/204 HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
    };
    const finish = (end: string): void => {
      if (life.endedAtMs !== undefined) return;
      life.endedAtMs = clock.now();
      life.end = set.isStopping() ? 'open' : end;
      if (inFlight && !set.isStopping()) life.requestsFailed += 1;
      clearTimeout(timer);
      set.sockets.delete(socket);
      socket.destroy();
      resolve(life);
    };
    socket.setNoDelay(true);
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      const { rest, responses } = takeResponses(buffered + chunk.toString('latin1'), life);
      buffered = rest;
      if (responses === 0) return;
      inFlight = false; // one request at a time: the next one an interval after its answer
      timer = setTimeout(send, set.intervalMs);
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
}

/**
 * `count` keep-alive HTTP/1.1 connections spread over `targets`, each sending `GET /status/204`
 * every `intervalMs` for the whole run, like a client with a long-lived pooled connection. Raw
 * sockets, because the end of a connection is the measurement: Node's HTTP client hides whether an
 * idle keep-alive socket got a FIN or a RST, a net.Socket does not ('end' = FIN, ECONNRESET = RST).
 * When a connection dies, the slot reconnects at once (as the ztunnel blog says applications
 * should); the new connection is the next generation, and its failures are new-connection failures.
 */
export function startLongLivedConnections(options: {
  targets: LongLivedTarget[];
  count: number;
  intervalMs: number;
  clock: Clock;
}): LongLivedConnections {
  const state = { stopping: false };
  const set: ConnectionSet = {
    clock: options.clock,
    intervalMs: options.intervalMs,
    lives: [],
    sockets: new Set(),
    isStopping: () => state.stopping,
  };
  const loops: Promise<void>[] = [];
  for (let slot = 0; slot < options.count; slot++) {
    const target = options.targets[slot % options.targets.length];
    if (!target) break;
    loops.push(
      (async () => {
        for (let generation = 0; !set.isStopping(); generation++) {
          const life = await liveConnection(set, slot, generation, target);
          // A connection that never answered waits an interval before the next try (no tight loop).
          if (life.requestsOk === 0 && !set.isStopping())
            await options.clock.sleep(options.intervalMs).catch(() => undefined);
        }
      })(),
    );
  }
  return {
    async stop(): Promise<ConnectionLife[]> {
      state.stopping = true;
      for (const socket of set.sockets) socket.destroy();
      await Promise.all(loops);
      return set.lives;
    },
  };
}
