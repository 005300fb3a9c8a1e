import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Clock } from '../../lib/index.ts';
import { closeOnBadLine, createLineDecoder, encodeLine } from '../json-lines.ts';
import { isTransientNetworkError, retryStartup } from '../startup-retry.ts';
import type { BackoffPolicy, StartupFailure } from '../startup-retry.ts';
import type { DiscoveryChange, DiscoveryState } from './discovery-state.ts';
import { createDiscoveryState } from './discovery-state.ts';
import type { ClientMessage, ServerMessage } from './protocol.ts';
import { DISCOVERY_PROTOCOL_VERSION, serviceKey } from './protocol.ts';

export interface DiscoveryClient {
  state: DiscoveryState;
  /**
   * Resolves once the first delta (the full state) has been applied; rejects (code ECONNRESET) when
   * the connection closes before that.
   */
  synced: Promise<void>;
  /**
   * Resolves, with the reason, when the subscription's connection has ended for any reason (close()
   * included): whoever owns the state decides whether to resubscribe (stay-subscribed.ts).
   */
  ended: Promise<string>;
  close(): void;
}

export interface DiscoveryClientOptions {
  host: string;
  port: number;
  node: string;
  instance: string;
  onChange?: (change: DiscoveryChange) => void;
  /** Every delta applied (after onChange): a gateway's main process relays them to its workers. */
  onApplied?: (message: ServerMessage) => void;
  onNack?: (error: string) => void;
  /** A connect that has not completed after this long fails with ETIMEDOUT (default: the kernel's). */
  connectTimeoutMs?: number;
  /**
   * The state a dropped subscription filled, to resume on: the subscribe names what it holds, and
   * the server's first delta removes what is gone (as `initial_resource_versions` in delta xDS).
   */
  state?: DiscoveryState;
}

const address = (o: { host: string; port: number }): string => `${o.host}:${String(o.port)}`;

/** Subscribes to the control plane, applies deltas (ACK) or refuses them whole (NACK). */
export async function connectDiscovery(options: DiscoveryClientOptions): Promise<DiscoveryClient> {
  const socket: Socket = connect({ host: options.host, port: options.port });
  const timeoutMs = options.connectTimeoutMs;
  const onTimeout = (): void => {
    const message = `connect to ${address(options)} not done within ${String(timeoutMs)} ms`;
    socket.destroy(Object.assign(new Error(message), { code: 'ETIMEDOUT' }));
  };
  if (timeoutMs !== undefined) socket.setTimeout(timeoutMs, onTimeout);
  await once(socket, 'connect');
  if (timeoutMs !== undefined) {
    socket.setTimeout(0);
    socket.off('timeout', onTimeout);
  }
  const state = options.state ?? createDiscoveryState();
  const synced = Promise.withResolvers<undefined>();
  const ended = Promise.withResolvers<string>();
  let endReason = 'closed by the control plane';
  // Owners that never wait for the first delta must not see an unhandled rejection at close.
  synced.promise.catch(() => undefined);
  let isSynced = false;
  socket.once('close', () => {
    ended.resolve(endReason);
    if (isSynced) return;
    const message = `discovery connection to ${address(options)} closed before the first update`;
    synced.reject(Object.assign(new Error(message), { code: 'ECONNRESET' }));
  });
  const send = (message: ClientMessage): void => {
    socket.write(encodeLine(message));
  };
  socket.on(
    'data',
    createLineDecoder(
      (line) => {
        const message = line as ServerMessage;
        try {
          const change = state.apply(message);
          send({ type: 'ack', nonce: message.nonce, version: message.version });
          isSynced = true;
          synced.resolve(undefined);
          options.onChange?.(change);
          options.onApplied?.(message);
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          send({ type: 'nack', nonce: message.nonce, error });
          options.onNack?.(error);
        }
      },
      closeOnBadLine(socket, 'discovery client'),
    ),
  );
  socket.on('error', (err: NodeJS.ErrnoException) => {
    // The owner sees the close (`ended`); reconnecting is its decision.
    endReason = err.code ?? err.message;
  });
  const held = state.workloads().length + state.services().length > 0;
  send({
    type: 'subscribe',
    protocol: DISCOVERY_PROTOCOL_VERSION,
    node: options.node,
    instance: options.instance,
    ...(held
      ? {
          known: {
            workloads: state.workloads().map((w) => w.uid),
            services: state.services().map(serviceKey),
          },
        }
      : {}),
  });
  return {
    state,
    synced: synced.promise,
    ended: ended.promise,
    close: () => {
      endReason = 'closed';
      socket.destroy();
    },
  };
}

/** The client once its first update is applied; closed, and the error rethrown, if none comes. */
export async function whenSynced(client: DiscoveryClient): Promise<DiscoveryClient> {
  try {
    await client.synced;
  } catch (err) {
    client.close();
    throw err;
  }
  return client;
}

/**
 * The first subscription of a process (ztunnel's start-up): connect and wait for the full state,
 * retried with bounded backoff while the control plane is unreachable or drops the connection before
 * its first update, as ztunnel's xDS client retries (istio/ztunnel src/xds/client.rs). Throws a
 * StartupError naming the address and the last reason once the policy's time is spent.
 */
export function connectDiscoveryWithRetry(
  options: DiscoveryClientOptions & {
    clock: Clock;
    policy?: BackoffPolicy;
    onRetry?: (failure: StartupFailure) => void;
  },
): Promise<DiscoveryClient> {
  const { clock, policy, onRetry, ...connectOptions } = options;
  return retryStartup({
    what: `discovery subscription to ${address(options)}`,
    clock,
    ...(policy ? { policy } : {}),
    ...(onRetry ? { onRetry } : {}),
    isTransient: isTransientNetworkError,
    attempt: async () => whenSynced(await connectDiscovery(connectOptions)),
  });
}
