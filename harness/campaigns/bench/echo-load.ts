import type { Duplex } from 'node:stream';

export interface EchoLoadResult {
  roundTrips: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

const MESSAGE = Buffer.alloc(64, 'x');

/**
 * Closed-loop echo load: each connection sends 64 bytes, waits for them to come back, and repeats
 * until `durationMs` is up (bounded in time, stops by itself). Latency per round trip.
 */
export async function runEchoLoad(options: {
  connections: Duplex[];
  durationMs: number;
}): Promise<EchoLoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const endAt = performance.now() + options.durationMs;
  const startMs = performance.now();
  await Promise.all(
    options.connections.map(
      (conn) =>
        new Promise<void>((resolve) => {
          let pending = 0;
          let sentAt = 0;
          const send = (): void => {
            if (performance.now() >= endAt) {
              resolve();
              return;
            }
            pending = MESSAGE.length;
            sentAt = performance.now();
            conn.write(MESSAGE);
          };
          conn.on('data', (chunk: Buffer) => {
            pending -= chunk.length;
            if (pending > 0) return;
            latencies.push(performance.now() - sentAt);
            send();
          });
          conn.on('error', () => {
            errors++;
            resolve();
          });
          send();
        }),
    ),
  );
  const elapsedS = (performance.now() - startMs) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    roundTrips: latencies.length,
    perSecond: latencies.length / elapsedS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
  };
}
