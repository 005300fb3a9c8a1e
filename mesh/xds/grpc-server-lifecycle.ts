import type { Server, ServerCredentials } from '@grpc/grpc-js';

/** Binds a gRPC server (both ADS servers' start): the port it got (port 0: a free one). */
export function bindGrpcServer(
  server: Server,
  at: { host: string; port: number; credentials: ServerCredentials },
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(`${at.host}:${String(at.port)}`, at.credentials, (err, bound) => {
      if (err) reject(err);
      else resolve(bound);
    });
  });
}

/** Ends every open stream, then shuts the server down gracefully (tryShutdown); settles once it is down. */
export function closeGrpcServer(server: Server, streams: Iterable<{ call: { end(): void } }>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const stream of streams) stream.call.end();
    server.tryShutdown(() => {
      resolve();
    });
  });
}
