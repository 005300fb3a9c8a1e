import { connect } from 'node:net';
import type { Clock } from '../../lib/index.ts';

/** How often the port is tried, and for how long, before the probes are left to decide. */
const RETRY_MS = 5;
const GIVE_UP_MS = 5000;

function tryConnect(host: string, port: number, localAddress: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/**
 * Resolves once something accepts a TCP connection on host:port, or after GIVE_UP_MS (the readiness
 * probe then says what is wrong), or when `signal` aborts. For a program that logs its "listening"
 * line before it listens (go-httpbin logs it, then calls ListenAndServe: httpbin/cmd/cmd.go
 * listenAndServeGracefully): the kubelet's first readiness probe, right after the start, would
 * otherwise race the listen and readiness wait a whole period (10 s).
 */
export async function waitForListener(options: {
  host: string;
  port: number;
  /** The source address (the kubelet's probe address, for a pod with in-pod capture). */
  localAddress?: string | undefined;
  clock: Clock;
  signal: AbortSignal;
}): Promise<void> {
  const deadline = options.clock.now() + GIVE_UP_MS;
  while (!options.signal.aborted && options.clock.now() < deadline) {
    if (await tryConnect(options.host, options.port, options.localAddress)) return;
    await options.clock.sleep(RETRY_MS, options.signal).catch(() => undefined);
  }
}
