import { createServer } from 'node:net';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/**
 * Refuses (exit 2) before anything starts when 127.0.0.1:<port>, where kind will publish the gateway's
 * nodePort, is taken: otherwise `kind create cluster` fails minutes later, after the images are built
 * ("Bind for 127.0.0.1:18080 failed: port is already allocated").
 */
export async function checkIngressPortFree(port: number): Promise<void> {
  const server = createServer();
  const taken = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err);
    });
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      resolve(undefined);
    });
  });
  if (!taken) {
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    return;
  }
  throw new HarnessError(
    ErrorCode.BadInput,
    `127.0.0.1:${String(port)}, where kind publishes the gateway's nodePort, is in use by another program (${taken.code ?? taken.message}); free it, or choose another port with --kind-ingress-port`,
  );
}
