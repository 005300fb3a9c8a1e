import { request } from 'node:http';
import type { Clock } from '../../lib/index.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

export interface ProbeSpec {
  host: string;
  /** The source address to probe from (the kubelet's SNAT address for a captured pod). */
  localAddress?: string | undefined;
  port: number;
  path: string;
  periodMs: number;
  timeoutMs: number;
  failureThreshold: number;
  successThreshold: number;
  initialDelayMs: number;
}

/** One HTTP GET probe: success is a status 200-399 within the timeout (kubelet's httpGet prober). */
export function probeOnce(spec: ProbeSpec): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: spec.host,
        port: spec.port,
        path: spec.path,
        agent: false,
        timeout: spec.timeoutMs,
        ...(spec.localAddress ? { localAddress: spec.localAddress } : {}),
      },
      (res) => {
        res.resume();
        resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      resolve(false);
    });
    req.end();
  });
}

/**
 * The kubelet's readiness worker (pkg/kubelet/prober/worker.go): first probe after initialDelay (0
 * here means at container start), then every period; Ready after successThreshold successes in a row,
 * not Ready after failureThreshold failures in a row. Stops when the signal aborts.
 */
export async function runReadinessProbe(options: {
  spec: ProbeSpec;
  clock: Clock;
  signal: AbortSignal;
  onResult: (isReady: boolean) => void;
}): Promise<void> {
  const { spec, clock, signal } = options;
  let ready = false;
  let successes = 0;
  let failures = 0;
  try {
    await clock.sleep(spec.initialDelayMs, signal);
    for (;;) {
      const ok = await probeOnce(spec);
      if (signal.aborted) return;
      successes = ok ? successes + 1 : 0;
      failures = ok ? 0 : failures + 1;
      if (!ready && successes >= spec.successThreshold) {
        ready = true;
        options.onResult(true);
      } else if (ready && failures >= spec.failureThreshold) {
        ready = false;
        options.onResult(false);
      }
      await clock.sleep(spec.periodMs, signal);
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}
