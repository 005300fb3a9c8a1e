import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startFaultServer } from '../../../apps/fault-server/fault-server.ts';
import type { Clock } from '../../../lib/index.ts';
import { runLoad } from '../../load/index.ts';
import { writeCsv } from '../../record/write-csv.ts';
import { createRecordTally, isFortioOk, OUTCOME_CLASSES } from '../../tally/index.ts';
import type { OutcomeClass } from '../../tally/index.ts';
import { chooseGenerator } from '../../provision/index.ts';
import type { GeneratorChoice, LoadGenerator } from '../../provision/index.ts';
import { createRunId } from '../../record/run-id.ts';
import { makeDirectory } from '../../../lib/index.ts';
import { markAbortedOnError, writeCommandVerdict } from './command-verdict.ts';

/**
 * Per-request timeout for calibration: the /delay/5 target outlasts it, and the other targets' answers
 * stay far inside it with the machine saturated (calibrate's defaults, max rate on two cores: the
 * slowest answer took 0.2 s), so each target keeps its one outcome on a busy machine too.
 */
export const CALIBRATION_TIMEOUT_S = 2;

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

export interface CalibrationOptions {
  qps: number;
  connections: number;
  durationS: number;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
  generator: GeneratorChoice;
}

export interface Calibration {
  runDir: string;
  rows: CalibrationRow[];
  total: number;
  generatorRequests: number;
  generator: LoadGenerator;
  isExact: boolean;
}

/**
 * `npm run experiment -- calibrate`: six targets, each producing one known outcome - 418 (ok), 503 (http_503), a
 * refused port, a TCP reset, a close without response (EOF), and a /delay past the request timeout.
 * k6 takes them in turn (by iteration number), so its own request count gives the exact number per
 * class; fortio takes one URL, so one fortio runs each target and its own count is that class's.
 * The tally must match exactly before anyone trusts a mesh result.
 */
export async function runCalibration(options: CalibrationOptions): Promise<Calibration> {
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
    return await markAbortedOnError(runDir, 'calibrate', () =>
      calibrate({ ...options, generator, runDir, base: `http://${host}:${String(httpbin.address.port)}` }),
    );
  } finally {
    await httpbin.destroy();
  }
}

/** The load against the six targets (`base`: the fault server's URL), its tally and its verdict. */
async function calibrate(
  options: Omit<CalibrationOptions, 'generator'> & { generator: LoadGenerator; runDir: string; base: string },
): Promise<Calibration> {
  const { clock, generator, runDir, base } = options;
  const host = new URL(base).hostname;
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
    generator,
    workDir: join(runDir, generator.kind),
    signal: options.signal,
    onRecord: (record) => {
      sink.add(record);
    },
    spec: {
      qps: options.qps,
      connections: options.connections,
      durationS: options.durationS,
      timeoutS: CALIBRATION_TIMEOUT_S,
      targets: targets.map(([url]) => url),
    },
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
  const differing = rows.filter((r) => r.expected !== r.got).map((r) => r.outcome);
  const isExact = differing.length === 0 && tally.total === calls;
  await writeCsv(
    join(runDir, 'calibration.csv'),
    rows.map((r) => ({ outcome: r.outcome, expected: r.expected, got: r.got })),
  );
  await writeCommandVerdict(runDir, {
    command: 'calibrate',
    verdict: isExact ? 'pass' : 'fail',
    reason: isExact
      ? `every class exact over ${String(calls)} requests`
      : `differs: ${differing.join(', ') || `tallied ${String(tally.total)} of ${String(calls)}`}`,
  });
  return { runDir, rows, total: tally.total, generatorRequests: calls, generator, isExact };
}
