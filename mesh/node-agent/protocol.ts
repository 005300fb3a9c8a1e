import type { LocalWorkload } from '../workload.ts';

/**
 * The node agent protocol: a simplified form of Istio CNI's ZDS (ztunnel discovery service,
 * istio/ztunnel proto/zds.proto). The node agent (the cluster backend, standing in for istio-cni)
 * is the server; each ztunnel instance on the node connects and says hello; the agent sends it the
 * node's workloads (`add` per pod, then `snapshot-sent`) and later changes. As in istio-cni, an
 * `add` goes to the newest instance only and a `del` to every instance. Every message is acked
 * once applied: an `add` only after that pod's listeners are bound.
 * Framing: one JSON object per line over a Unix socket.
 */
export const NODE_AGENT_PROTOCOL_VERSION = 1;

export type AgentMessage =
  | { type: 'add'; seq: number; workload: LocalWorkload }
  /**
   * The pod is gone. `networkGone`: its sandbox (veth) was torn down before this reached ztunnel, as
   * upstream's DelWorkload comes today, so nothing ztunnel sends on the pod's connections reaches a
   * peer (the local backend has no veth to delete: ztunnel emulates it, see ztunnel.ts).
   */
  | { type: 'del'; seq: number; uid: string; networkGone?: boolean }
  /**
   * Two hooks istio/ztunnel#1191 proposes, sent to every instance (an instance without the matching
   * drain strategy just acks): the pod's termination has started (option 1, a ZDS
   * "ShutdownStarting"), and the CNI DEL of its sandbox, before the network goes (option 2).
   */
  | { type: 'shutdown-starting'; seq: number; uid: string }
  | { type: 'cni-del'; seq: number; uid: string }
  | { type: 'snapshot-sent'; seq: number };

export type ZtunnelMessage =
  { type: 'hello'; version: number; instance: string } | { type: 'ack'; seq: number; error?: string };

export { closeOnBadLine, createLineDecoder, encodeLine } from '../json-lines.ts';
