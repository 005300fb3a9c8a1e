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

/**
 * The agent's socket, retried while it is not there yet (a DaemonSet's pods start in no order):
 * back-off from 10 ms, doubling, to 15 s, as istio/ztunnel's workload manager retries the ZDS
 * socket (src/inpod/workloadmanager.rs, 1.28.1).
 */
async function connectWithBackoff(path: string, log: Logger): Promise<Socket> {
  for (let delayMs = 10, attempt = 1; ; attempt++, delayMs = Math.min(delayMs * 2, 15_000)) {
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

/**
 * ztunnel's side of the node agent protocol: hello, then apply each add/del/snapshot-sent and ack it
 * (an add only once that pod's listeners are bound, so the agent knows the pod is captured).
 * Messages are applied in order, one at a time.
 */
export async function connectNodeAgent(options: {
  path: string;
  instance: string;
  ztunnel: Ztunnel;
  log: Logger;
}): Promise<Socket> {
  const socket = await connectWithBackoff(options.path, options.log);
  let queue = Promise.resolve();
  const apply = async (message: AgentMessage): Promise<void> => {
    try {
      if (message.type === 'add') await options.ztunnel.addWorkload(message.workload);
      else if (message.type === 'del')
        options.ztunnel.delWorkload(message.uid, { networkGone: message.networkGone ?? false });
      else if (message.type === 'shutdown-starting') options.ztunnel.onShutdownStarting(message.uid);
      else if (message.type === 'cni-del') await options.ztunnel.onCniDel(message.uid);
      else {
        options.ztunnel.markSnapshotSent();
        options.log.info('ready', { instance: options.instance });
      }
      socket.write(encodeLine({ type: 'ack', seq: message.seq }));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      options.log.error('node agent message failed', { type: message.type, error });
      socket.write(encodeLine({ type: 'ack', seq: message.seq, error }));
    }
  };
  socket.on(
    'data',
    createLineDecoder(
      (message) => {
        queue = queue.then(() => apply(message as AgentMessage));
      },
      closeOnBadLine(socket, 'node agent client'),
    ),
  );
  socket.on('error', (err) => {
    options.log.warn('node agent connection error', { error: err.message });
  });
  socket.write(
    encodeLine({ type: 'hello', version: NODE_AGENT_PROTOCOL_VERSION, instance: options.instance }),
  );
  return socket;
}
