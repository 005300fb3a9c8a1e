import type { ServerMessage } from '../discovery/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';

/**
 * What the gateway's main process (pilot-agent + Envoy's main thread) and its workers (Envoy's
 * worker threads) tell each other over the cluster IPC channel. The main thread owns the xDS stream
 * and SDS; workers get the same configuration, and the certificate, from it.
 */
export type ToWorker =
  | { type: 'gateway-init'; cert: WorkloadCertificate }
  /** A discovery delta the main process applied (the first one is its whole state). */
  | { type: 'gateway-delta'; message: ServerMessage }
  /** SIGTERM reached the main process: stop listening, close, exit. */
  | { type: 'gateway-drain' };

export type FromWorker = { type: 'gateway-listening'; worker: number; address: string };

export function isToWorker(message: unknown): message is ToWorker {
  const type = (message as { type?: unknown } | null)?.type;
  return type === 'gateway-init' || type === 'gateway-delta' || type === 'gateway-drain';
}

export function isFromWorker(message: unknown): message is FromWorker {
  return (message as { type?: unknown } | null)?.type === 'gateway-listening';
}
