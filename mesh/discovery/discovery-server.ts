import type { AddressInfo, Socket } from 'node:net';
import { waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { createPendingAnswers, encodeLine } from '../json-lines.ts';
import type { PendingAnswers } from '../json-lines.ts';
import { startJsonLinesServer } from '../json-lines-server.ts';
import type { ClientMessage, Delta, ServerMessage, ServiceEntry, WorkloadEntry } from './protocol.ts';
import { DISCOVERY_PROTOCOL_VERSION, serviceKey } from './protocol.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'discovery server (istiod xDS)');

export interface DiscoverySnapshot {
  workloads: WorkloadEntry[];
  services: ServiceEntry[];
}

export interface PushResult {
  version: string;
  subscribers: number;
  acked: number;
  nacked: number;
}

export interface DiscoveryServer {
  host: string;
  port: number;
  /** Sends each subscriber the delta from what it last received to `snapshot`; resolves on ACK/NACK. */
  push(snapshot: DiscoverySnapshot): Promise<PushResult>;
  subscriberCount(): number;
  close(): Promise<void>;
}

interface Subscriber {
  socket: Socket;
  node: string;
  instance: string;
  /** What this subscriber was last sent, by key, as JSON (to diff without deep equality). */
  sentWorkloads: Map<string, string>;
  sentServices: Map<string, string>;
  answers: PendingAnswers<string, 'ack' | 'nack'>;
}

function diff<T>(items: T[], key: (t: T) => string, sent: Map<string, string>): Delta<T> {
  const next = new Map(items.map((item) => [key(item), item]));
  const upsert = items.filter((item) => sent.get(key(item)) !== JSON.stringify(item));
  const remove = [...sent.keys()].filter((k) => !next.has(k));
  sent.clear();
  for (const [k, item] of next) sent.set(k, JSON.stringify(item));
  return { upsert, remove };
}

/**
 * The control plane's side of the discovery protocol (protocol.ts): each subscriber gets the full
 * state on subscribe (and the removal of what it says it holds that is gone), then per push only what changed for it. A push is complete when every
 * subscriber has answered (ACK or NACK) or `ackTimeoutMs` has passed.
 */
export async function startDiscoveryServer(options: {
  host: string;
  port?: number;
  clock: Clock;
  ackTimeoutMs?: number;
  onSubscribe?: (node: string, instance: string) => void;
}): Promise<DiscoveryServer> {
  let current: DiscoverySnapshot = { workloads: [], services: [] };
  let version = 0;
  let nonce = 0;

  const send = (sub: Subscriber, snapshot: DiscoverySnapshot): Promise<'ack' | 'nack'> => {
    const message: ServerMessage = {
      type: 'delta',
      version: String(version),
      nonce: String(++nonce),
      workloads: diff(snapshot.workloads, (w) => w.uid, sub.sentWorkloads),
      services: diff(snapshot.services, serviceKey, sub.sentServices),
    };
    const answered = sub.answers.expect(message.nonce);
    sub.socket.write(encodeLine(message));
    return answered;
  };

  // What is this protocol's and not the shared skeleton's: TCP, as istiod's plaintext xDS (port
  // 15010), where the node agent listens on a Unix socket; the greeting (subscribe, which starts the
  // full state); the ACK/NACKs.
  const server = await startJsonLinesServer<Subscriber>({
    listen: { host: options.host, port: options.port ?? 0 },
    protocol: 'discovery',
    greet: (line, socket) => {
      const message = line as ClientMessage;
      if (message.type !== 'subscribe' || message.protocol !== DISCOVERY_PROTOCOL_VERSION) return undefined;
      const { node, instance } = message;
      // A resubscribing client's holdings count as sent, in no version ours: the first delta
      // re-sends what exists and removes the rest.
      const known = (keys: unknown): Map<string, string> =>
        new Map(Array.isArray(keys) ? keys.filter((k) => typeof k === 'string').map((k) => [k, '']) : []);
      return {
        socket,
        node,
        instance,
        sentWorkloads: known(message.known?.workloads),
        sentServices: known(message.known?.services),
        answers: createPendingAnswers(),
      };
    },
    onGreeted: (sub) => {
      options.onSubscribe?.(sub.node, sub.instance);
      void send(sub, current);
    },
    onMessage: (line, sub) => {
      const message = line as ClientMessage;
      if (message.type === 'ack' || message.type === 'nack') sub.answers.answer(message.nonce, message.type);
    },
    onClosed: (sub) => {
      sub.answers.close('nack');
    },
  });

  return {
    host: options.host,
    port: (server.address() as AddressInfo).port,
    subscriberCount: () => server.peers().length,
    async push(snapshot) {
      current = snapshot;
      version++;
      const targets = server.peers();
      const outcomes = await Promise.all(
        targets.map(async (sub) => {
          const answer = await waitAtMost(options.clock, send(sub, snapshot), options.ackTimeoutMs ?? 5000);
          return answer.done ? answer.value : 'timeout';
        }),
      );
      return {
        version: String(version),
        subscribers: targets.length,
        acked: outcomes.filter((o) => o === 'ack').length,
        nacked: outcomes.filter((o) => o === 'nack').length,
      };
    },
    close: () => server.close(),
  };
}
