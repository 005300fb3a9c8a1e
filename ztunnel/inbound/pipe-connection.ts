import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Copies bytes both ways between a downstream (an HBONE stream or a TCP socket) and the upstream
 * socket, half-closes each way as the other ends, and calls `onDone` once both sides have closed,
 * with bytes counted at the upstream socket (sent = towards the client).
 */
export function pipeConnection(
  downstream: Duplex,
  upstream: Socket,
  onDone: (bytes: { sent: number; recv: number }, error?: Error) => void,
): void {
  let open = 2;
  let firstError: Error | undefined;
  const closed = (): void => {
    open--;
    if (open === 0) onDone({ sent: upstream.bytesRead, recv: upstream.bytesWritten }, firstError);
  };
  const onError = (err: Error): void => {
    firstError ??= err;
    // One side failed: the other cannot go on. Tear it down rather than leave it half-open.
    downstream.destroy();
    upstream.destroy();
  };
  downstream.once('close', closed);
  upstream.once('close', closed);
  downstream.on('error', onError);
  upstream.on('error', onError);
  downstream.pipe(upstream);
  upstream.pipe(downstream);
}
