// The node agent's side of ZDS, as istio-cni runs it (istio/istio cni/pkg/nodeagent/ztunnelserver.go
// and ztunnelserver_linux.go at 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c): every ztunnel instance on
// the node connects to the agent's SOCK_SEQPACKET socket and says hello; the agent sends it the
// node's pods (AddWorkload with the pod's netns fd, or KeepWorkload when it has no netns for one),
// then SnapshotSent, one message at a time, each waiting for its ack (5 s). Afterwards a new pod
// goes to the newest connection only (PodAdded: LatestConn) and a removed pod to every connection
// (PodDeleted: "critical to handle proper shutdown/reconnect cycles"), so during a DaemonSet
// upgrade the old instance keeps its pods until it drains and the new one gets every pod in its
// snapshot.
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { decodeZdsAck, decodeZdsHello, encodeZdsRequest } from './zds-messages.ts';
import type { ZdsAck, ZdsRequest, ZdsWorkloadInfo } from './zds-messages.ts';
import type { ZdsRelay, ZdsRelayConnection } from './zds-relay.ts';

/** istio-cni's readWriteDeadline: the hello, and each ack, must come within it. */
export const ZDS_ACK_TIMEOUT_MS = 5_000;

/** A pod of the node: `netnsPath` is its network namespace (e.g. /proc/<pid>/ns/net); none sends a keep. */
export interface ZdsPod {
  uid: string;
  workloadInfo: ZdsWorkloadInfo;
  netnsPath?: string;
}

export type ZdsAgentEvent =
  | { kind: 'connected'; conn: number; total: number }
  | { kind: 'hello'; conn: number; version: number }
  | { kind: 'snapshot-sent'; conn: number; pods: number }
  | { kind: 'nack'; conn: number; request: ZdsRequest['kind']; uid?: string; error: string }
  | { kind: 'disconnected'; conn: number; total: number; reason: string };

export interface ZdsNodeAgentOptions {
  /** A relay in serve mode on the node's ZDS socket (/var/run/ztunnel/ztunnel.sock upstream). */
  relay: ZdsRelay;
  /** The node's pods now: what a newly connected ztunnel is sent. */
  snapshot(): readonly ZdsPod[];
  ackTimeoutMs?: number;
  onEvent?(event: ZdsAgentEvent): void;
}

export interface ZdsNodeAgent {
  /** AddWorkload to the newest ztunnel; rejects with no ztunnel connected, or on a nack. */
  podAdded(pod: ZdsPod): Promise<void>;
  /** DelWorkload to every connected ztunnel; rejects with the errors of those that failed. */
  podDeleted(uid: string): Promise<void>;
  readonly connections: number;
  /** Stops accepting and closes the relay (every ztunnel reads EOF). Idempotent. */
  close(): Promise<void>;
}

function zdsError(message: string): HarnessError {
  return new HarnessError(ErrorCode.ComponentFailed, message);
}

/** One ztunnel's connection: messages leave one at a time, each answered before the next. */
class ZtunnelConnection {
  readonly conn: ZdsRelayConnection;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #ackTimeoutMs: number;

  constructor(conn: ZdsRelayConnection, ackTimeoutMs: number) {
    this.conn = conn;
    this.#ackTimeoutMs = ackTimeoutMs;
  }

  /** Sends `request` after everything queued before it; resolves with its ack. */
  sendAndWaitForAck(request: ZdsRequest, netnsPath?: string): Promise<ZdsAck> {
    const turn = this.#queue.then(async () => {
      await this.conn.send(encodeZdsRequest(request), netnsPath ? { netnsPath } : {});
      const reply = await this.conn.receive(this.#ackTimeoutMs);
      if (reply.truncated) throw zdsError('truncated ZDS response');
      return decodeZdsAck(reply.data) ?? { error: '' };
    });
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}

const requestFor = (pod: ZdsPod): ZdsRequest =>
  pod.netnsPath
    ? { kind: 'add', uid: pod.uid, workloadInfo: pod.workloadInfo }
    : { kind: 'keep', uid: pod.uid };

export function startZdsNodeAgent(options: ZdsNodeAgentOptions): ZdsNodeAgent {
  const ackTimeoutMs = options.ackTimeoutMs ?? ZDS_ACK_TIMEOUT_MS;
  const emit = (event: ZdsAgentEvent): void => options.onEvent?.(event);
  const connections: ZtunnelConnection[] = [];
  const state = { closing: false };
  const isClosing = (): boolean => state.closing; // read anew after an await

  const drop = (z: ZtunnelConnection, reason: string): void => {
    const at = connections.indexOf(z);
    if (at < 0) return;
    connections.splice(at, 1);
    z.conn.close();
    emit({ kind: 'disconnected', conn: z.conn.id, total: connections.length, reason });
  };

  const nacked = (z: ZtunnelConnection, request: ZdsRequest, ack: ZdsAck): void => {
    if (ack.error === '') return;
    const uid = 'uid' in request ? request.uid : undefined;
    emit({ kind: 'nack', conn: z.conn.id, request: request.kind, ...(uid ? { uid } : {}), error: ack.error });
  };

  // handleConn: registered before the hello (so a pod added meanwhile queues behind the snapshot).
  const handle = async (z: ZtunnelConnection): Promise<void> => {
    const hello = decodeZdsHello((await z.conn.receive(ackTimeoutMs)).data);
    emit({ kind: 'hello', conn: z.conn.id, version: hello.version });
    const pods = options.snapshot();
    for (const pod of pods) {
      const request = requestFor(pod);
      nacked(z, request, await z.sendAndWaitForAck(request, pod.netnsPath));
    }
    nacked(z, { kind: 'snapshot-sent' }, await z.sendAndWaitForAck({ kind: 'snapshot-sent' }));
    emit({ kind: 'snapshot-sent', conn: z.conn.id, pods: pods.length });
  };

  const accepting = (async () => {
    while (!isClosing()) {
      let conn: ZdsRelayConnection;
      try {
        conn = await options.relay.accept(60_000);
      } catch (err) {
        if (isClosing()) return;
        // A quiet minute is no error; anything else is the relay gone, and with it the agent.
        if (err instanceof Error && /^no ZDS connection within/.test(err.message)) continue;
        return;
      }
      const z = new ZtunnelConnection(conn, ackTimeoutMs);
      connections.push(z);
      emit({ kind: 'connected', conn: conn.id, total: connections.length });
      // istio-cni finds a gone ztunnel by a short read every 5 s; the relay says so at once.
      void conn.closed.then(() => {
        drop(z, 'closed by ztunnel');
      });
      handle(z).catch((err: unknown) => {
        drop(z, err instanceof Error ? err.message : String(err));
      });
    }
  })();

  return {
    get connections() {
      return connections.length;
    },
    async podAdded(pod) {
      const latest = connections.at(-1);
      if (!latest) throw zdsError(`no ztunnel connection to send pod ${pod.uid} to`);
      const request = requestFor(pod);
      const ack = await latest.sendAndWaitForAck(request, pod.netnsPath).catch((err: unknown) => {
        if (latest.conn.isClosed) drop(latest, 'closed');
        throw err;
      });
      nacked(latest, request, ack);
      if (ack.error !== '') throw zdsError(`ztunnel refused pod ${pod.uid}: ${ack.error}`);
    },
    async podDeleted(uid) {
      const results = await Promise.allSettled(
        // istio-cni's PodDeleted logs a nack and goes on: only a failed send is an error.
        connections.map((z) =>
          z.sendAndWaitForAck({ kind: 'del', uid }).then((ack) => {
            nacked(z, { kind: 'del', uid }, ack);
          }),
        ),
      );
      const failed = results.flatMap((r) =>
        r.status === 'rejected' ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : [],
      );
      for (const z of [...connections]) if (z.conn.isClosed) drop(z, 'closed');
      if (failed.length > 0) throw zdsError(`DelWorkload ${uid} failed: ${failed.join('; ')}`);
    },
    async close() {
      state.closing = true;
      await options.relay.close();
      await accepting;
    },
  };
}
