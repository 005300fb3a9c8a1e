// A bare grpc-js server over TLS on loopback for tests that record what a client sends (its
// metadata, its request) with a service implementation of their own; closed after the test.
import { Server, ServerCredentials } from '@grpc/grpc-js';

/** Binds 127.0.0.1 on a free port with `serving`'s certificate; resolves with host:port. */
export async function startBareGrpcServer(
  t: { after(fn: () => void): void },
  serving: { keyPem: string; certPem: string },
  addServices: (server: Server) => void,
): Promise<string> {
  const server = new Server();
  addServices(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      '127.0.0.1:0',
      ServerCredentials.createSsl(null, [
        { private_key: Buffer.from(serving.keyPem), cert_chain: Buffer.from(serving.certPem) },
      ]),
      (err, p) => {
        if (err) reject(err);
        else resolve(p);
      },
    );
  });
  t.after(() => {
    server.forceShutdown();
  });
  return `127.0.0.1:${String(port)}`;
}
