import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startFaultServer } from '../../../apps/fault-server/fault-server.ts';
import type { Clock } from '../../../lib/index.ts';
import { runLoad } from '../load/index.ts';
import { writeCsv } from '../../results/write-csv.ts';
import { createRecordTally, isFortioOk, OUTCOME_CLASSES } from '../tally/index.ts';
import type { OutcomeClass } from '../tally/index.ts';
import { chooseGenerator } from '../../tools/index.ts';
import type { GeneratorChoice, LoadGenerator } from '../../tools/index.ts';
import { createRunId } from '../../results/run-id.ts';
import { makeDirectory } from '../../../lib/index.ts';

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

/** Per class, the count of the fortio that ran each class's target. */
function byOutcome(
  targets: readonly (readonly [string, OutcomeClass])[],
  counts: readonly number[],
): Map<OutcomeClass, number> {
  const expected = new Map<OutcomeClass, number>();
  targets.forEach(([, outcome], k) => {
    expected.set(outcome, (expected.get(outcome) ?? 0) + (counts[k] ?? 0));
  });
  return expected;
}

/** Per class, what k6's request count says it must be (iteration i takes target i mod n). */
function inTurn(
  targets: readonly (readonly [string, OutcomeClass])[],
  total: number,
): Map<OutcomeClass, number> {
  const expected = new Map<OutcomeClass, number>();
  targets.forEach(([, outcome], k) => {
    expected.set(outcome, Math.floor((total - k - 1) / targets.length) + 1);
  });
  return expected;
}

/**
 * `npm run experiment -- calibrate`: six targets, each producing one known outcome - 418 (ok), 503 (http_503), a
 * refused port, a TCP reset, a close without response (EOF), and a /delay past the request timeout.
 * k6 takes them in turn (by iteration number), so its own request count gives the exact number per
 * class; fortio takes one URL, so one fortio runs each target and its own count is that class's.
 * The tally must match exactly before anyone trusts a mesh result.
 */
export async function runCalibration(options: {
  qps: number;
  connections: number;
  durationS: number;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
  generator: GeneratorChoice;
}): Promise<{
  runDir: string;
  rows: CalibrationRow[];
  total: number;
  generatorRequests: number;
  generator: LoadGenerator;
  isExact: boolean;
}> {
  const { clock } = options;
  const generator = await chooseGenerator(options.generator, {
    signal: options.signal,
    write: options.write,
  });
  const host = '127.0.0.1';
  const httpbin = await startFaultServer({ host, port: 0, hostname: 'calibration', clock, faults: true });
  const runDir = join(options.resultsDir, createRunId('calibrate', clock.now() + clock.wallOffsetMs));
  await makeDirectory(runDir);
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
    const onRecord = (record: Parameters<typeof sink.add>[0]): void => {
      sink.add(record);
    };
    const spec = {
      qps: options.qps,
      connections: options.connections,
      durationS: options.durationS,
      timeoutS: CALIBRATION_TIMEOUT_S,
    };
    const load = await runLoad({
      generator,
      workDir: join(runDir, generator.kind),
      signal: options.signal,
      onRecord,
      spec: { ...spec, targets: targets.map(([url]) => url) },
    });
    const calls = load.summary.httpReqs;
    // k6 takes the targets in turn; fortio runs one process per target and counts each.
    const expected = load.summary.perTarget
      ? byOutcome(targets, load.summary.perTarget)
      : inTurn(targets, calls);
    const tally = sink.result();
    const totals = tally.timeline.totals();
    const rows = OUTCOME_CLASSES.map((outcome) => ({
      outcome,
      expected: expected.get(outcome) ?? 0,
      got: totals[outcome],
    }));
    const isExact = rows.every((r) => r.expected === r.got) && tally.total === calls;
    await writeCsv(
      join(runDir, 'calibration.csv'),
      rows.map((r) => ({ outcome: r.outcome, expected: r.expected, got: r.got })),
    );
    return { runDir, rows, total: tally.total, generatorRequests: calls, generator, isExact };
  } finally {
    await httpbin.destroy();
  }
}
