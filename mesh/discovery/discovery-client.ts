import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { closeOnBadLine, createLineDecoder, encodeLine } from '../json-lines.ts';
import type { DiscoveryChange, DiscoveryState } from './discovery-state.ts';
import { createDiscoveryState } from './discovery-state.ts';
import type { ClientMessage, ServerMessage } from './protocol.ts';
import { DISCOVERY_PROTOCOL_VERSION } from './protocol.ts';

export interface DiscoveryClient {
  state: DiscoveryState;
  /** Resolves once the first delta (the full state) has been applied. */
  synced: Promise<void>;
  close(): void;
}

/** Subscribes to the control plane, applies deltas (ACK) or refuses them whole (NACK). */
export async function connectDiscovery(options: {
  host: string;
  port: number;
  node: string;
  instance: string;
  onChange?: (change: DiscoveryChange) => void;
  /** Every delta applied (after onChange): a gateway's main process relays them to its workers. */
  onApplied?: (message: ServerMessage) => void;
  onNack?: (error: string) => void;
}): Promise<DiscoveryClient> {
  const socket: Socket = connect({ host: options.host, port: options.port });
  await once(socket, 'connect');
  const state = createDiscoveryState();
  const synced = Promise.withResolvers<undefined>();
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
  socket.on('error', () => {
    // The owner sees the close; reconnecting is its decision.
  });
  send({
    type: 'subscribe',
    protocol: DISCOVERY_PROTOCOL_VERSION,
    node: options.node,
    instance: options.instance,
  });
  return {
    state,
    synced: synced.promise,
    close: () => {
      socket.destroy();
    },
  };
}
