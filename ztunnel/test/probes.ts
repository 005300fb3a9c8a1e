// Short connections through a ztunnel process, each bounded at 3 s: one through the plaintext
// capture of a pod (its inbound), one through a client pod's outbound capture (:15001, a PROXY v2
// header naming the original destination), each echoing a few bytes.
import { connect } from 'node:net';
import { encodeProxyV2 } from '../../mesh/proxy-protocol.ts';

export interface Attempt {
  startMs: number;
  endMs: number;
  error?: string;
}

/** Connect, send `payload` (after `preamble`), expect it echoed, close. */
function echoOnce(host: string, port: number, payload: string, preamble?: Buffer): Promise<Attempt> {
  const startMs = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let echoed = '';
    const done = (error?: string): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ startMs, endMs: performance.now(), ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => {
      done('timeout');
    }, 3000);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      done(err.code ?? err.message);
    });
    socket.on('data', (d: Buffer) => {
      echoed += d.toString();
      if (echoed === payload) done();
    });
    socket.on('end', () => {
      if (echoed !== payload) done(`closed after ${JSON.stringify(echoed)}`);
    });
    socket.write(preamble ? Buffer.concat([preamble, Buffer.from(payload)]) : payload);
  });
}

/** Through the pod's inbound capture (its address, the app's port). */
export function probe(host: string, port: number): Promise<Attempt> {
  return echoOnce(host, port, 'ping');
}

/** From `clientIp` through its outbound capture to `dst` (a service VIP and port). */
export function probeOutbound(clientIp: string, dst: { ip: string; port: number }): Promise<Attempt> {
  return echoOnce(clientIp, 15001, 'ping', encodeProxyV2({ ip: clientIp, port: 40000 }, dst));
}

/** Starts `count` probes a tick, every `everyMs`, for `forMs`: bounded in count and time. */
export function keepProbing(
  next: () => Promise<Attempt>,
  { everyMs, forMs }: { everyMs: number; forMs: number },
): { attempts: Promise<Attempt>[]; stop(): void } {
  const attempts: Promise<Attempt>[] = [];
  const start = performance.now();
  const timer = setInterval(() => {
    if (performance.now() - start > forMs) {
      clearInterval(timer);
      return;
    }
    attempts.push(next());
  }, everyMs);
  return {
    attempts,
    stop: () => {
      clearInterval(timer);
    },
  };
}
