// The suite as a data file: suites/seeds.yaml runs what it says, every option survives the suite
// path, the shape rules judge as the documents read, and a broken suite file is refused up front.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify, parse } from 'yaml';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { formatRunConfig } from '../../config/run-config.ts';
import { EVERY_RUNNABLE_FIELD, resolve, SCOPED_RUNS } from '../../config/test/experiment-fixtures.ts';
import type { ExperimentParams } from '../../options/experiment-params.ts';
import { ENTRY_REPORTS } from './entry-reports.ts';
import { entryArgs } from './run-suite.ts';
import { blankColumns, judgeShape } from './shape-rule.ts';
import type { Row } from './shape-rule.ts';
import { loadSuite, parseSuite, suiteCopy } from './suite-file.ts';
import type { SuiteEntry } from './suite-file.ts';
import { suiteJUnit } from './summarize-suite.ts';
import { formatSuiteMarkdown } from './suite-table.ts';

const seeds = await loadSuite('seeds');
const entry = (configuration: string): SuiteEntry => {
  const found = seeds.entries.find((e) => e.configuration === configuration);
  assert.ok(found, configuration);
  return found;
};

test('suites/seeds.yaml: every entry is a valid experiment whose runs repeat as the entry says', async () => {
  assert.ok(seeds.entries.length >= 25, String(seeds.entries.length));
  for (const e of seeds.entries) {
    // An entry with kind's own option (Istio's control plane) is checked, and runs, on kind.
    const params = await resolve(entryArgs(e, 3, e.flags.backend));
    assert.equal(params.scenario, e.flags.scenario, e.configuration);
    assert.ok(entryArgs(e, 3).join(' ').endsWith('--repeat 3'));
  }
  const g120 = await resolve(entry('c=100, 200 s, grace 120').args);
  assert.deepEqual([g120.connections, g120.durationS, g120.graceS, g120.qps], [100, 200, 120, 0]);
  const plain = await resolve(entry('c=100, 60 s, gateway plain (outside the mesh)').args);
  assert.equal(plain.gatewayMode, 'plain');
  const push = await resolve(entry('ambient, push latency +400 ms').args);
  assert.equal(push.timing.pushLatencyMs, 650);
  const istio = entry("ambient, Istio's control plane (kind), debounce 10 ms");
  assert.equal(istio.flags.backend, 'kind');
  assert.deepEqual((await resolve(entryArgs(istio, 1, 'kind'))).timing, { debounceQuietMs: 10 });
});

/** A suite of one entry whose run is `run`. */
const oneEntry = (run: unknown, more: Record<string, unknown> = {}): string =>
  stringify({
    entries: [
      {
        experiment: 'E9',
        configuration: 'x',
        run,
        repeats: 1,
        estimate_s: 10,
        document: 'd',
        report: 'e2',
        ...more,
      },
    ],
  });

test('every RunConfig field survives the suite path: params -> suite file -> argv -> params', async () => {
  const scoped = await Promise.all(SCOPED_RUNS.map((argv) => resolve(argv)));
  for (const params of [
    EVERY_RUNNABLE_FIELD,
    { ...EVERY_RUNNABLE_FIELD, restartAtS: undefined } as ExperimentParams,
    ...scoped,
  ]) {
    const run: unknown = parse(formatRunConfig(params, 'run-dir'));
    const [only] = parseSuite(oneEntry(run), 'every-field.yaml').entries;
    assert.ok(only);
    assert.deepEqual(await resolve(entryArgs(only, 2)), params);
  }
});

const failedRow = (failed: number, extra: Row = {}): Row => ({
  requests: 1000,
  ok: 1000 - failed,
  http_503: failed,
  duration_s: 60,
  drain_deadlines_s: '46.514 48.209',
  deadline_failed_before_drop: 1,
  deadline_failed_after_drop: failed - 1,
  deadline_gateway_reaction_ms: 12,
  deadline_inside: 1,
  deadline_predicted_low: 2,
  deadline_predicted_high: 9,
  deadline_t_past_ms: 0.9,
  deadline_l_ms: 0.3,
  deadline_cpu_wait_pct: 20,
  ...extra,
});
const judge = (e: SuiteEntry, rows: Row[], all: ReadonlyMap<string, Row[]> = new Map()): boolean => {
  assert.ok(e.shape, `${e.configuration} has a shape rule`);
  return judgeShape(e.shape, rows, all);
};

test('E1 shape: single digits, and not more with grace 120 than without', () => {
  const c1000 = entry('c=1000, 60 s, grace 30');
  const g120 = entry('c=1000, 200 s, grace 120');
  const all = new Map([[c1000.configuration, [failedRow(5), failedRow(4), failedRow(6)]]]);
  assert.equal(judge(c1000, [failedRow(5), failedRow(4), failedRow(6)]), true);
  assert.equal(judge(entry('c=100, 60 s, grace 30'), [failedRow(55)]), false);
  assert.equal(judge(g120, [failedRow(2), failedRow(1)], all), true);
  assert.equal(judge(g120, [failedRow(7), failedRow(8), failedRow(9)], all), false, 'more than grace 30');
  assert.equal(judge(g120, [failedRow(2)], new Map()), false, 'nothing to hold it against');
  // Issue 30: every run inside the band its own measured T_past, L and rate predict.
  assert.equal(judge(c1000, [failedRow(5), failedRow(4, { deadline_inside: 0 }), failedRow(6)]), false);
  // The headroom row judges the deadlines' count (a keep-alive race's 503s are another mechanism).
  const headroom = entry('c=100, 60 s, 2000 RPS (headroom)');
  assert.equal(
    judge(headroom, [failedRow(12, { deadline_accounted: 2 }), failedRow(3, { deadline_accounted: 3 })]),
    true,
  );
  assert.equal(
    judge(headroom, [failedRow(12, { deadline_accounted: 12 }), failedRow(12, { deadline_accounted: 10 })]),
    false,
  );
  assert.equal(entry('c=100, 60 s, restart at 40 s (deadline after the load)').shape, undefined);
  assert.equal(
    ENTRY_REPORTS[c1000.report]([failedRow(5), failedRow(4), failedRow(6)]),
    '503: 4 / 5 / 6; failed 4 / 5 / 6; at the deadlines: sent before / after the drop 1 / 1 / 1 ; 3 / 4 / 5, ' +
      'gateway reaction 12 / 12 / 12 ms; deadlines at 46.514 48.209 | 46.514 48.209 | 46.514 48.209 s of 60 s; ' +
      'mechanism band 2-9 / 2-9 / 2-9, inside 3 of 3, T_past 0.9 / 0.9 / 0.9 ms, L 0.3 / 0.3 / 0.3 ms, CPU wait 20 / 20 / 20 %',
  );
});

test('E2 shapes: a burst per pod; 400 ms more lag, at least 300 ms longer bursts; mesh off median zero', () => {
  const burst = (ms: number, bursts = 3): Row => ({
    requests: 500,
    ok: 490,
    bursts,
    replicas: 3,
    bursts_after_sigterm: bursts,
    max_burst_ms: ms,
  });
  const base = entry('ambient, 50 RPS, 3 replicas');
  assert.equal(judge(base, [burst(280), burst(300)]), true);
  assert.equal(judge(base, [burst(280), burst(300, 2)]), false, 'a run with a burst missing');
  assert.equal(judge(base, [burst(1200)]), false, 'a burst over a second');
  const push = entry('ambient, push latency +400 ms');
  const all = new Map([[base.configuration, [burst(280), burst(300), burst(260)]]]);
  assert.equal(judge(push, [burst(600), burst(680), burst(700)], all), true);
  assert.equal(judge(push, [burst(500), burst(560), burst(900)], all), false, '560 < 280 + 300');
  const off = entry('mesh off');
  const zero = { requests: 500, ok: 500 };
  assert.equal(judge(off, [zero, zero, { requests: 500, ok: 499 }]), true);
  assert.equal(judge(off, [zero, { requests: 500, ok: 499 }, { requests: 500, ok: 499 }]), false);
});

test("a column the rule reads left empty by the backend (kind's bursts_after_sigterm) is named, not judged as a failed shape", () => {
  const base = entry('ambient, 50 RPS, 3 replicas');
  assert.ok(base.shape);
  const kindRow: Row = {
    requests: 1500,
    ok: 1493,
    bursts: 3,
    replicas: 3,
    bursts_after_sigterm: '',
    max_burst_ms: 200,
  };
  assert.deepEqual(blankColumns(base.shape, [kindRow]), ['bursts_after_sigterm']);
  assert.deepEqual(blankColumns(base.shape, [{ ...kindRow, bursts_after_sigterm: 3 }]), []);
  // Derived columns (failed) read requests and ok, always there: never blank.
  const off = entry('mesh off');
  assert.ok(off.shape);
  assert.deepEqual(blankColumns(off.shape, [{ requests: 1500, ok: 1500 }]), []);
});

test('E5 shape: derived new-connections-per-app-connection', () => {
  const option1 = entry('option 1: GOAWAY at termination start (ZDS) (E2 rollout, meshed client 20 RPS)');
  const row = (opened: number): Row => ({
    stale_hbone_connections: 0,
    hbone_opened_while_terminating: opened,
    app_connections_while_terminating: 10,
  });
  assert.equal(judge(option1, [row(9)]), true);
  assert.equal(judge(option1, [row(2)]), false);
});

test("a suite folder's copy keeps the suite's name and its entries", () => {
  const copy = parseSuite(suiteCopy(seeds), '/some/run/suite.yaml');
  assert.equal(copy.name, 'seeds');
  assert.deepEqual(copy.entries, seeds.entries);
  // With --only, the entries that ran, in their order (the entry folders are numbered so).
  const e2 = seeds.entries.filter((e) => e.experiment.startsWith('E2'));
  assert.deepEqual(parseSuite(suiteCopy(seeds, e2), '/some/run/suite.yaml').entries, e2);
});

const BROKEN: [string, string, RegExp][] = [
  ['not YAML', 'entries: [', /YAML/],
  ['no entries', 'entries: []', /entries/],
  ['an unknown key', oneEntry({ scenario: 'workload-rollout' }, { repeat: 2 }), /repeat/],
  ['an unknown report', oneEntry({ scenario: 'workload-rollout' }, { report: 'e9' }), /report/],
  ['a bad option value', oneEntry({ scenario: 'workload-rollout', connections: 0 }), /connections/],
  ['an unknown option', oneEntry({ scenario: 'workload-rollout', conections: 5 }), /conections/],
  [
    'a run setting repeat',
    oneEntry({ scenario: 'workload-rollout', repeat: 3 }),
    /repeat.*the suite sets it/,
  ],
  [
    'a condition on no column',
    oneEntry({ scenario: 'workload-rollout' }, { shape: { median: ['faild <= 9'] } }),
    /no column "faild"/,
  ],
  [
    'a condition that does not parse',
    oneEntry({ scenario: 'workload-rollout' }, { shape: { every_run: ['failed =< 9'] } }),
    /shape\.every_run\[0\].*is not/,
  ],
  ['an empty shape', oneEntry({ scenario: 'workload-rollout' }, { shape: {} }), /at least one condition/],
  [
    'a comparison with no such configuration',
    oneEntry(
      { scenario: 'workload-rollout' },
      { shape: { against: { configuration: 'y', median: ['failed <= failed'] } } },
    ),
    /against\.configuration.*another entry.*"y"/,
  ],
  [
    'a configuration twice',
    stringify({
      entries: [0, 1].map(
        () => (parse(oneEntry({ scenario: 'long-lived' })) as { entries: unknown[] }).entries[0],
      ),
    }),
    /unique/,
  ],
];

for (const [what, text, message] of BROKEN)
  test(`a suite file with ${what} is refused as bad input naming the file`, () => {
    assert.throws(
      () => parseSuite(text, 'broken.yaml'),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.BadInput) &&
        err.exitCode === 2 &&
        /broken\.yaml/.test(err.message) &&
        message.test(err.message),
    );
  });

test('the suite table is Markdown with one line per configuration and escaped cells', () => {
  const md = formatSuiteMarkdown([
    {
      experiment: 'E2',
      configuration: 'a | b',
      repeats: 1,
      document: 'd',
      ours: 'o',
      shape: 'yes',
      reproduce: 'x',
    },
  ]);
  assert.equal(md.split('\n')[2]?.replace(/ +/g, ' '), '| E2 | a \\| b | 1 | d | o | yes |');
});

test("the suite's JUnit: a case per configuration, failed where the shape does not hold, skipped without a check", () => {
  const row = {
    experiment: 'E1 ztunnel-upgrade',
    repeats: 5,
    document: '4-6',
    ours: '60',
    reproduce: 'npm run x',
  };
  const xml = suiteJUnit('seeds', [
    { ...row, configuration: 'c=100', shape: 'no' },
    { ...row, configuration: 'c=100 tcp_migrate_req=1', shape: '-' },
    { ...row, configuration: 'c=1000', shape: 'yes' },
  ]);
  assert.match(xml, /<testsuites tests="3" failures="1" errors="0">/);
  assert.match(
    xml,
    /<testcase classname="ztunnel-harness.suite.E1-ztunnel-upgrade" name="c=100">\s*<failure message="document: 4-6; ours: 60; reproduce: npm run x"/,
  );
});
