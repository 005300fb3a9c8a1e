import { once } from 'node:events';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Logger } from '../../lib/index.ts';
import type { AgentMessage } from '../../mesh/node-agent/index.ts';
import {
  closeOnBadLine,
  createLineDecoder,
  encodeLine,
  NODE_AGENT_PROTOCOL_VERSION,
} from '../../mesh/node-agent/index.ts';
import type { Ztunnel } from '../ztunnel.ts';
import { createSnapshotReconciler } from './snapshot-reconcile.ts';

/**
 * The agent's socket, retried while it is not there yet (a DaemonSet's pods start in no order):
 * back-off from 10 ms, doubling, to 15 s, as istio/ztunnel's workload manager retries the ZDS
 * socket (src/inpod/workloadmanager.rs, 1.28.1).
 */
async function connectWithBackoff(path: string, log: Logger): Promise<Socket>;
async function connectWithBackoff(
  path: string,
  log: Logger,
  stopped: () => boolean,
): Promise<Socket | undefined>;
async function connectWithBackoff(
  path: string,
  log: Logger,
  stopped = () => false,
): Promise<Socket | undefined> {
  for (let delayMs = 10, attempt = 1; ; attempt++, delayMs = Math.min(delayMs * 2, 15_000)) {
    if (stopped()) return undefined;
    const socket = connect(path);
    try {
      await once(socket, 'connect');
      return socket;
    } catch (err) {
      socket.destroy();
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw err;
      if (attempt === 1 || delayMs === 15_000)
        log.warn('node agent not there yet, retrying', { path, error: code, retry_in_ms: delayMs });
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

export interface NodeAgentClient {
  /** The uids served now. */
  pods(): string[];
  /** How many connections have been made (1, and one more after each drop). */
  connections(): number;
  /** Stops reconnecting and closes the connection. */
  destroy(): Promise<void>;
}

/**
 * ztunnel's side of the node agent protocol: hello, then apply each add/del/snapshot-sent and ack it
 * (an add only once that pod's listeners are bound, so the agent knows the pod is captured).
 * Messages are applied in order, one at a time. When the agent goes away (istio-cni restarted or
 * upgraded), the pods stay served, ztunnel is not ready, and it reconnects with the same back-off;
 * the new connection's snapshot is reconciled with what it holds (snapshot-reconcile.ts).
 */
export async function connectNodeAgent(options: {
  path: string;
  instance: string;
  ztunnel: Pick<
    Ztunnel,
    | 'addWorkload'
    | 'delWorkload'
    | 'onShutdownStarting'
    | 'onCniDel'
    | 'markSnapshotSent'
    | 'markSnapshotPending'
  >;
  log: Logger;
  /** False once ztunnel drains: a draining instance does not come back (workloadmanager.rs). */
  shouldReconnect?: () => boolean;
}): Promise<NodeAgentClient> {
  const { ztunnel, log } = options;
  const held = new Set<string>();
  const snapshot = createSnapshotReconciler();
  let destroyed = false;
  let connections = 0;
  let socket = await connectWithBackoff(options.path, log);

  const apply = async (to: Socket, message: AgentMessage): Promise<void> => {
    try {
      if (message.type === 'add') {
        snapshot.named(message.workload.uid);
        await ztunnel.addWorkload(message.workload);
        held.add(message.workload.uid);
      } else if (message.type === 'del') {
        snapshot.deleted(message.uid);
        held.delete(message.uid);
        ztunnel.delWorkload(message.uid, { networkGone: message.networkGone ?? false });
      } else if (message.type === 'shutdown-starting') ztunnel.onShutdownStarting(message.uid);
      else if (message.type === 'cni-del') await ztunnel.onCniDel(message.uid);
      else {
        for (const uid of snapshot.snapshotSent(held)) {
          // Deleted while we were away: its sandbox is gone by now.
          held.delete(uid);
          ztunnel.delWorkload(uid, { networkGone: true });
          log.info('pod removed: not in the new snapshot', { uid });
        }
        ztunnel.markSnapshotSent();
        log.info('ready', { instance: options.instance });
      }
      to.write(encodeLine({ type: 'ack', seq: message.seq }));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      log.error('node agent message failed', { type: message.type, error });
      to.write(encodeLine({ type: 'ack', seq: message.seq, error }));
    }
  };

  const serve = (conn: Socket): Promise<void> => {
    connections++;
    snapshot.newStream();
    let queue = Promise.resolve();
    conn.on(
      'data',
      createLineDecoder(
        (message) => {
          queue = queue.then(() => apply(conn, message as AgentMessage));
        },
        closeOnBadLine(conn, 'node agent client'),
      ),
    );
    conn.on('error', (err) => {
      log.warn('node agent connection error', { error: err.message });
    });
    conn.write(
      encodeLine({ type: 'hello', version: NODE_AGENT_PROTOCOL_VERSION, instance: options.instance }),
    );
    return new Promise((resolve) => {
      conn.once('close', () => {
        resolve();
      });
    });
  };

  const stopped = (): boolean => destroyed || options.shouldReconnect?.() === false;
  const stayConnected = async (): Promise<void> => {
    for (;;) {
      await serve(socket);
      if (stopped()) return;
      ztunnel.markSnapshotPending();
      log.warn('node agent connection ended, reconnecting', { path: options.path, pods: held.size });
      const next = await connectWithBackoff(options.path, log, stopped);
      if (!next) return;
      socket = next;
    }
  };
  void stayConnected().catch((err: unknown) => {
    log.error('node agent reconnect stopped', { error: err instanceof Error ? err.message : String(err) });
  });
  return {
    pods: () => [...held],
    connections: () => connections,
    destroy: () => {
      destroyed = true;
      socket.destroy();
      return Promise.resolve();
    },
  };
}
