import type { Duplex } from 'node:stream';

/** Whether the last bytes went downstream-to-upstream and have not been answered yet. */
export interface FlowState {
  awaitingAnswer: boolean;
}

/**
 * Copies bytes both ways between a downstream (an HBONE stream or a TCP socket) and an upstream
 * (the app's socket, or an HBONE stream for outbound), half-closes each way as the other ends, and
 * calls `onDone` once both sides have closed: `sent` = bytes towards the downstream, `recv` = bytes
 * from it. `flow` follows who spoke last (drain's count of requests in flight).
 */
export function pipeConnection(
  downstream: Duplex,
  upstream: Duplex,
  onDone: (bytes: { sent: number; recv: number }, error?: Error) => void,
  flow: FlowState = { awaitingAnswer: false },
): void {
  const bytes = { sent: 0, recv: 0 };
  let open = 2;
  let firstError: Error | undefined;
  const closed = (): void => {
    open--;
    if (open === 0) onDone(bytes, firstError);
  };
  const onError = (err: Error): void => {
    firstError ??= err;
    // One side failed: the other cannot go on. Tear it down rather than leave it half-open.
    downstream.destroy();
    upstream.destroy();
  };
  downstream.on('data', (chunk: Buffer) => {
    bytes.recv += chunk.length;
    flow.awaitingAnswer = true;
  });
  upstream.on('data', (chunk: Buffer) => {
    bytes.sent += chunk.length;
    flow.awaitingAnswer = false;
  });
  downstream.once('close', closed);
  upstream.once('close', closed);
  downstream.on('error', onError);
  upstream.on('error', onError);
  downstream.pipe(upstream);
  upstream.pipe(downstream);
}
