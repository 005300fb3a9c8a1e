import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildExperimentProgram, paramsFromFlags } from '../cli/experiment-program.ts';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { CLUSTER_SCENARIOS } from '../scenarios/index.ts';
import { flagsToArgs } from './flags-to-args.ts';
import { suiteJUnit } from './summarize-suite.ts';
import { SEED_SUITE } from './seed-suite.ts';
import type { Row, SuiteEntry } from './seed-suite.ts';
import { formatSuiteMarkdown } from './suite-table.ts';

test('every suite entry is a valid experiment command line that sets what the entry says', () => {
  for (const entry of SEED_SUITE) {
    const args = flagsToArgs({ ...entry.flags, repeat: 2 });
    const program = buildExperimentProgram();
    const flags = program.parse(['node', 'experiment', ...args]).opts<ExperimentFlags>();
    const scenario = CLUSTER_SCENARIOS[flags.scenario];
    assert.ok(scenario, `${entry.configuration}: scenario ${flags.scenario}`);
    const params = paramsFromFlags(program, flags, scenario);
    if (entry.flags.connections !== undefined) assert.equal(params.connections, entry.flags.connections);
    if (entry.flags.grace !== undefined) assert.equal(params.graceS, entry.flags.grace);
    if (entry.flags.drainStrategy) assert.equal(params.arms.drainStrategy, entry.flags.drainStrategy);
    if (entry.flags.exitOnZeroActiveConnections) assert.equal(params.arms.exitOnZeroActiveConnections, true);
    if (entry.flags.timing) assert.deepEqual(params.timing, entry.flags.timing);
    if (entry.flags.path !== undefined) assert.equal(params.path, entry.flags.path);
    if (entry.flags.qps !== undefined) assert.equal(params.qps, entry.flags.qps);
    if (entry.flags.duration !== undefined) assert.equal(params.durationS, entry.flags.duration);
    if (entry.flags.gatewayMode !== undefined) assert.equal(params.gatewayMode, entry.flags.gatewayMode);
    assert.equal(flags.repeat, 2);
  }
});

function shapeOf(entry: SuiteEntry): NonNullable<SuiteEntry['shape']> {
  if (!entry.shape) throw new Error(`${entry.configuration} has no shape rule`);
  return entry.shape;
}

const e1Row = (failed: number): Row => ({
  requests: 1000,
  ok: 1000 - failed,
  http_503: failed,
  duration_s: 60,
  drain_deadlines_s: '46.514 48.209',
  deadline_failed_before_drop: 1,
  deadline_failed_after_drop: failed - 1,
  deadline_gateway_reaction_ms: 12,
});

test('E1 shape: single digits, and not more with grace 120 than without', () => {
  const [c1000, c100, g120c1000] = SEED_SUITE;
  assert.ok(c1000 && c100 && g120c1000);
  const all = new Map([
    [c1000.configuration, [e1Row(5), e1Row(4), e1Row(6)]],
    [c100.configuration, [e1Row(4)]],
  ]);
  assert.equal(shapeOf(c1000)([e1Row(5), e1Row(4), e1Row(6)], all), true);
  assert.equal(shapeOf(c100)([e1Row(55)], all), false);
  assert.equal(shapeOf(g120c1000)([e1Row(2), e1Row(1)], all), true);
  assert.equal(
    shapeOf(g120c1000)([e1Row(7), e1Row(8), e1Row(9)], all),
    false,
    'more than the grace-30 median',
  );
  assert.equal(SEED_SUITE.find((e) => e.configuration.includes('restart at 40'))?.shape, undefined);
  assert.equal(
    c1000.ours([e1Row(5), e1Row(4), e1Row(6)]),
    '503: 4 / 5 / 6; failed 4 / 5 / 6; at the deadlines: sent before / after the drop 1 / 1 / 1 ; 3 / 4 / 5, ' +
      'gateway reaction 12 / 12 / 12 ms; deadlines at 46.514 48.209 | 46.514 48.209 | 46.514 48.209 s of 60 s',
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
