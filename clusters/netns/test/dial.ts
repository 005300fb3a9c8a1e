import { connect } from 'node:net';

/**
 * Connects to host:port from where this process runs and resolves with the first bytes that came
 * back, 'timeout', or the error's code: what a listener (or nothing) answers there.
 */
export function dial(
  host: string,
  port: number,
  options: { timeoutMs?: number; localAddress?: string } = {},
): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      timeout: options.timeoutMs ?? 1500,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString());
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code ?? err.message);
    });
  });
}
