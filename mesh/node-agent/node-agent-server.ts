import type { Socket } from 'node:net';
import type { LocalWorkload } from '../workload.ts';
import type { AgentMessage, ZtunnelMessage } from './protocol.ts';
import { encodeLine, NODE_AGENT_PROTOCOL_VERSION } from './protocol.ts';
import { createPendingAnswers } from '../json-lines.ts';
import type { PendingAnswers } from '../json-lines.ts';
import { startJsonLinesServer } from '../json-lines-server.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'CNI node agent');

/** One connected ztunnel instance, newest last. */
interface Instance {
  name: string;
  socket: Socket;
  /** Each message's answer: acked, refused with the ztunnel's reason, or the instance gone. */
  answers: PendingAnswers<number, { refused?: string; disconnected?: true }>;
}

export interface NodeAgentServer {
  path: string;
  /** Instance names in connection order (the last is the newest). */
  instances(): string[];
  /** Adds a pod: sent to the newest instance; resolves when it acked (its listeners are bound). */
  addWorkload(workload: LocalWorkload): Promise<void>;
  /** Removes a pod from every instance; `networkGone`: its sandbox went first (see protocol.ts). */
  delWorkload(uid: string, options?: { networkGone?: boolean }): Promise<void>;
  /** Tells every instance the pod's termination has started (istio/ztunnel#1191 option 1). */
  shutdownStarting(uid: string): Promise<void>;
  /** The CNI DEL hook: resolves once every instance has finished with the pod (option 2). */
  cniDel(uid: string): Promise<void>;
  /** Resolves when an instance named `name` has acked its snapshot. */
  whenSnapshotAcked(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The node agent's side (istio-cni's role): keeps the node's workloads and sends a new instance the
 * full snapshot on hello, then `add`s to the newest instance and `del`s to all.
 */
export async function startNodeAgentServer(path: string): Promise<NodeAgentServer> {
  const workloads = new Map<string, LocalWorkload>();
  const snapshots = new Map<string, PromiseWithResolvers<undefined>>();
  const snapshotOf = (name: string): PromiseWithResolvers<undefined> => {
    let deferred = snapshots.get(name);
    if (!deferred) {
      deferred = Promise.withResolvers<undefined>();
      snapshots.set(name, deferred);
    }
    return deferred;
  };
  let seq = 0;

  const send = async (instance: Instance, message: AgentMessage): Promise<void> => {
    const answered = instance.answers.expect(message.seq);
    instance.socket.write(encodeLine(message));
    const { refused, disconnected } = await answered;
    if (disconnected) throw new Error(`${instance.name} disconnected`);
    if (refused !== undefined)
      throw new Error(`${instance.name} refused message ${String(message.seq)}: ${refused}`);
  };

  // What is this protocol's and not the shared skeleton's: a Unix socket, as istio-cni's ZDS
  // (/var/run/ztunnel/ztunnel.sock), where discovery listens on TCP; the greeting (hello, which
  // starts the snapshot); the acks.
  const server = await startJsonLinesServer<Instance>({
    listen: { path },
    protocol: 'node agent',
    greet: (line, socket) => {
      const message = line as ZtunnelMessage;
      if (message.type !== 'hello' || message.version !== NODE_AGENT_PROTOCOL_VERSION) return undefined;
      return { name: message.instance, socket, answers: createPendingAnswers() };
    },
    onGreeted: (instance) => {
      const snapshot = [...workloads.values()].map((workload) =>
        send(instance, { type: 'add', seq: ++seq, workload }),
      );
      const deferred = snapshotOf(instance.name);
      Promise.all(snapshot)
        .then(() => send(instance, { type: 'snapshot-sent', seq: ++seq }))
        .then(() => {
          deferred.resolve(undefined);
        }, deferred.reject);
    },
    onMessage: (line, instance) => {
      const message = line as ZtunnelMessage;
      if (message.type === 'ack')
        instance.answers.answer(message.seq, message.error === undefined ? {} : { refused: message.error });
    },
    onClosed: (instance) => {
      instance.answers.close({ disconnected: true });
    },
  });
  const instances = (): Instance[] => server.peers();

  return {
    path,
    instances: () => instances().map((i) => i.name),
    async addWorkload(workload) {
      workloads.set(workload.uid, workload);
      const newest = instances().at(-1);
      if (newest) await send(newest, { type: 'add', seq: ++seq, workload });
    },
    async delWorkload(uid, options = {}) {
      workloads.delete(uid);
      const networkGone = options.networkGone ?? false;
      await Promise.allSettled(
        instances().map((i) =>
          send(i, { type: 'del', seq: ++seq, uid, ...(networkGone ? { networkGone } : {}) }),
        ),
      );
    },
    async shutdownStarting(uid) {
      await Promise.allSettled(
        instances().map((i) => send(i, { type: 'shutdown-starting', seq: ++seq, uid })),
      );
    },
    async cniDel(uid) {
      await Promise.allSettled(instances().map((i) => send(i, { type: 'cni-del', seq: ++seq, uid })));
    },
    whenSnapshotAcked: (name) => snapshotOf(name).promise,
    close: () => server.close(),
  };
}
