// Load in fortio's shape: `--qps 0 -c N` = N connections as fast as they go (constant-vus); `--qps R -c N` =
// R requests/s from N pre-allocated VUs (constant-arrival-rate). Each VU keeps its own keep-alive
// connection, like a fortio connection.
//
// Every request is written as one CSV line to the console output (k6 --console-output=FILE
// --log-format=raw), which the harness reads back:
//   start_ms,duration_ms,status,error_code,flag,error
// duration_ms to the microsecond (k6's timings); start_ms is k6's wall clock at request start (the harness maps it onto the run's monotonic clock),
// flag is the value of LOAD_FLAG_HEADER in the response (a gateway's response flags) when asked for.
// This costs ~70 bytes a request, where k6's own CSV output writes ~1.5 kB (13 metric rows), so the
// collection path is not what limits the rate.
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options, Scenario } from 'k6/options';
import { parseLoadEnv } from './lib/load-env.ts';

const load = parseLoadEnv(__ENV);

function scenario(): Scenario {
  // Every started request may run to its timeout before k6 stops the VU, so none is cut off
  // uncounted (k6 would interrupt it after gracefulStop).
  const gracefulStop = `${String(load.timeoutS + 2)}s`;
  const duration = `${String(load.durationS)}s`;
  if (load.iterations > 0) {
    // Exactly this many requests (fortio -n): each may run to its timeout.
    const maxDuration = `${String(load.durationS + load.timeoutS + 2)}s`;
    return { executor: 'shared-iterations', vus: load.connections, iterations: load.iterations, maxDuration };
  }
  if (load.qps === 0) {
    return { executor: 'constant-vus', vus: load.connections, duration, gracefulStop };
  }
  return {
    executor: 'constant-arrival-rate',
    rate: load.qps,
    timeUnit: '1s',
    duration,
    preAllocatedVUs: load.connections,
    maxVUs: load.connections,
    gracefulStop,
  };
}

export const options: Options = {
  discardResponseBodies: true,
  noConnectionReuse: load.newConnections,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max'],
  scenarios: { load: scenario() },
};

export default function (): void {
  const url = load.targets[exec.scenario.iterationInTest % load.targets.length] ?? load.targets[0];
  const startMs = Date.now();
  const res = http.get(url ?? '', { timeout: `${String(load.timeoutS)}s` });
  if (!load.records) return;
  // k6's timings are fractional milliseconds: blocked + connecting + TLS + sending + waiting +
  // receiving is the whole call as fortio times it (a new connection's setup included). Without a
  // response they may be partial: the wall clock then (whole milliseconds).
  const t = res.timings;
  const durationMs =
    res.status === 0
      ? Date.now() - startMs
      : t.blocked + t.connecting + t.tls_handshaking + t.sending + t.waiting + t.receiving;
  const flag = load.flagHeader ? (res.headers[load.flagHeader] ?? '') : '';
  const error = res.status === 0 ? res.error.replace(/[,"\r\n]+/g, ' ').slice(0, 160) : '';
  console.log(
    `${String(startMs)},${durationMs.toFixed(3)},${String(res.status)},${String(res.error_code)},${flag},${error}`,
  );
}
