import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startFaultServer } from '../../apps/fault-server/fault-server.ts';
import type { Clock } from '../../lib/index.ts';
import { runLoad } from '../load/index.ts';
import type { LoadSpec } from '../load/index.ts';
import { writeCsv } from '../results/write-csv.ts';
import { createRecordTally, isFortioOk, OUTCOME_CLASSES } from '../tally/index.ts';
import type { OutcomeClass } from '../tally/index.ts';
import { chooseGenerator } from '../tools/index.ts';
import type { GeneratorChoice, LoadGenerator } from '../tools/index.ts';
import { createRunId } from '../results/run-id.ts';
import { makeDirectory } from '../../lib/index.ts';

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
 * fortio takes one URL: one fortio per target, all at once, each with a sixth of the rate and
 * connections; per class, the expected count is the own count of the fortio that ran that target.
 */
async function runFortioPerTarget(options: {
  generator: LoadGenerator;
  targets: readonly (readonly [string, OutcomeClass])[];
  spec: Omit<LoadSpec, 'targets'>;
  runDir: string;
  signal: AbortSignal;
  onRecord: Parameters<typeof runLoad>[0]['onRecord'];
}): Promise<{ expected: Map<OutcomeClass, number>; calls: number }> {
  const n = options.targets.length;
  const spec = {
    ...options.spec,
    qps: options.spec.qps / n,
    connections: Math.max(1, Math.round(options.spec.connections / n)),
  };
  const results = await Promise.all(
    options.targets.map(([url], k) =>
      runLoad({
        generator: options.generator,
        workDir: join(options.runDir, 'fortio', String(k + 1)),
        signal: options.signal,
        ...(options.onRecord ? { onRecord: options.onRecord } : {}),
        spec: { ...spec, targets: [url] },
      }),
    ),
  );
  const expected = new Map<OutcomeClass, number>();
  let calls = 0;
  for (const [k, result] of results.entries()) {
    const outcome = options.targets[k]?.[1] ?? 'other';
    expected.set(outcome, (expected.get(outcome) ?? 0) + result.summary.httpReqs);
    calls += result.summary.httpReqs;
  }
  return { expected, calls };
}

/**
 * `--scenario calibrate`: six targets, each producing one known outcome - 418 (ok), 503 (http_503), a
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
    let expected: Map<OutcomeClass, number>;
    let calls: number;
    if (generator.kind === 'k6') {
      const load = await runLoad({
        generator,
        workDir: join(runDir, 'k6'),
        signal: options.signal,
        onRecord,
        spec: { ...spec, targets: targets.map(([url]) => url) },
      });
      calls = load.summary.httpReqs;
      expected = inTurn(targets, calls);
    } else {
      ({ expected, calls } = await runFortioPerTarget({
        generator,
        targets,
        spec,
        runDir,
        signal: options.signal,
        onRecord,
      }));
    }
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
