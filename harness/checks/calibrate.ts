import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startHttpbin } from '../../apps/httpbin/httpbin-server.ts';
import type { Clock } from '../../lib/index.ts';
import { runLoad } from '../load/index.ts';
import { writeCsv } from '../results/write-csv.ts';
import { createRecordTally, isFortioOk, OUTCOME_CLASSES } from '../tally/index.ts';
import type { OutcomeClass } from '../tally/index.ts';
import { ensureK6 } from '../tools/index.ts';
import { createRunId } from '../results/run-id.ts';

/** Per-request timeout for calibration: the /delay target outlasts it by far. */
export const CALIBRATION_TIMEOUT_S = 0.5;

/** A free loopback port with nothing listening (bound, then closed): connections to it are refused. */
async function closedPort(host: string): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface CalibrationRow {
  outcome: OutcomeClass;
  expected: number;
  got: number;
}

/** Per class, what k6's request count says it must be (iteration i takes target i mod n) next to the tally. */
function expectedAgainstTallied(
  targets: readonly (readonly [string, OutcomeClass])[],
  total: number,
  totals: Record<OutcomeClass, number>,
): CalibrationRow[] {
  const expected = new Map<OutcomeClass, number>();
  targets.forEach(([, outcome], k) => {
    expected.set(outcome, Math.floor((total - k - 1) / targets.length) + 1);
  });
  return OUTCOME_CLASSES.map((outcome) => ({
    outcome,
    expected: expected.get(outcome) ?? 0,
    got: totals[outcome],
  }));
}

/**
 * `--scenario calibrate`: k6 takes six targets in turn (by iteration number), each producing one
 * known outcome - 418 (ok), 503 (http_503), a refused port, a TCP reset, a close without response
 * (EOF), and a /delay past the request timeout. From k6's own request count the expected number per
 * class is exact; the tally must match it exactly before anyone trusts a mesh result.
 */
export async function runCalibration(options: {
  qps: number;
  connections: number;
  durationS: number;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
}): Promise<{ runDir: string; rows: CalibrationRow[]; total: number; k6HttpReqs: number; isExact: boolean }> {
  const { clock } = options;
  const k6 = await ensureK6({ signal: options.signal, clock, write: options.write });
  const host = '127.0.0.1';
  const httpbin = await startHttpbin({ host, port: 0, hostname: 'calibration', clock, faults: true });
  const runDir = join(options.resultsDir, createRunId('calibrate', clock.now() + clock.wallOffsetMs));
  await mkdir(runDir, { recursive: true });
  try {
    const base = `http://${host}:${String(httpbin.address.port)}`;
    const targets: [string, OutcomeClass][] = [
      [`${base}/status/418`, 'ok'],
      [`${base}/status/503`, 'http_503'],
      [`http://${host}:${String(await closedPort(host))}/`, 'refused'],
      [`${base}/fault/reset`, 'reset'],
      [`${base}/fault/close`, 'eof'],
      [`${base}/delay/5`, 'timeout'],
    ];
    const originMs = clock.now();
    const sink = createRecordTally({ clock, originMs, bucketMs: 100, isOk: isFortioOk });
    const load = await runLoad({
      k6,
      workDir: join(runDir, 'k6'),
      signal: options.signal,
      onRecord: (record) => {
        sink.add(record);
      },
      spec: {
        targets: targets.map(([url]) => url),
        qps: options.qps,
        connections: options.connections,
        durationS: options.durationS,
        timeoutS: CALIBRATION_TIMEOUT_S,
      },
    });
    const tally = sink.result();
    const rows = expectedAgainstTallied(targets, tally.total, tally.timeline.totals());
    const isExact = rows.every((r) => r.expected === r.got) && tally.total === load.summary.httpReqs;
    await writeCsv(
      join(runDir, 'calibration.csv'),
      rows.map((r) => ({ outcome: r.outcome, expected: r.expected, got: r.got })),
    );
    return { runDir, rows, total: tally.total, k6HttpReqs: load.summary.httpReqs, isExact };
  } finally {
    await httpbin.destroy();
  }
}
