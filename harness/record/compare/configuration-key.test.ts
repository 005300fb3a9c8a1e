// The nightly job compares today's runs with a committed baseline: a column added since (schema 4's
// one column set for every backend) must not split their configurations.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLocalBackend } from '../../../clusters/local/index.ts';
import { buildSummaryRow, EMPTY_FACTS } from '../run-row.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { loadSuite } from '../../campaigns/suite/suite-file.ts';
import { configurationOf } from './configuration-key.ts';
import { readRuns } from './read-runs.ts';

test("an E1 c=100 row keys as the committed baselines' rows of its generator and gateway (schema 3 -> 8)", async () => {
  const baseline = await readRuns(
    join(PROJECT_ROOT, 'results', 'baselines', 'local-seeds-k6-2026-11-23.csv'),
  );
  const fortioBaseline = await readRuns(
    join(PROJECT_ROOT, 'results', 'baselines', 'local-seeds-fortio-node-gateway-2026-11-24.csv'),
  );
  const envoyBaseline = await readRuns(join(PROJECT_ROOT, 'results', 'baselines', 'local-seeds.csv'));
  const seeds = await loadSuite('seeds');
  const entry = seeds.entries.find((e) => e.configuration === 'c=100, 60 s, grace 30');
  assert.ok(entry);
  const params = await resolve(entry.args);
  const backend = createLocalBackend({ nodeCount: 2 }).describe();
  // envoyVersion '' stands for the rows before schema 8, whose gateway was the Node imitation.
  const keyWith = (kind: string, envoyVersion = '', readCloseKinds = false): string => {
    const generator = { kind, version: '' };
    const run = { ...params, arms: { ...params.arms, readCloseKinds } };
    const today = buildSummaryRow(run, undefined, [], {
      ...EMPTY_FACTS,
      backend,
      generator,
      envoyVersion,
    });
    const values = Object.fromEntries(Object.entries(today).map(([k, v]) => [k, String(v)]));
    return configurationOf({ line: 2, values, counts: {} as never, latency: {} }).key;
  };
  const matching = (key: string, rows = baseline) =>
    rows.filter((r) => configurationOf(r).key === key).length;
  // The 2026-11-23 baseline was measured with k6 (schema 3, before schema 7 named the generator).
  assert.equal(matching(keyWith('k6')), 5, 'the five k6 runs of this configuration');
  assert.equal(matching(keyWith('fortio')), 0, 'a fortio run is another configuration');
  // The nightly's baseline since 2026-11-24: fortio, the seed suite's run and three more.
  assert.equal(matching(keyWith('fortio'), fortioBaseline), 4);
  assert.equal(matching(keyWith('k6'), fortioBaseline), 0);
  // Envoy in place of the Node imitation (schema 8): another gateway, so another configuration.
  assert.equal(matching(keyWith('fortio', '1.40.0'), fortioBaseline), 0);
  assert.equal(matching(keyWith('k6', '1.40.0')), 0);
  // The nightly's baseline since Envoy: the seed suite's run of this configuration, four more, and
  // issue 30's five.
  assert.equal(matching(keyWith('fortio', '1.40.0'), envoyBaseline), 10);
  assert.equal(matching(keyWith('fortio'), envoyBaseline), 0);
  // Schema 11's read_close_kinds: its default keys with every older row; the read is another arm.
  assert.equal(matching(keyWith('fortio', '1.40.0', true), envoyBaseline), 0);
});

test("kind's load paths are two configurations: a cluster pod's rows and the host's do not pool", () => {
  const row = (ingress: string) =>
    configurationOf({
      line: 2,
      values: { schema_version: '13', backend: 'kind', scenario: 'workload-rollout', ingress_path: ingress },
      counts: {} as never,
      latency: {},
    }).key;
  assert.notEqual(row('cluster-pod+clusterip'), row('docker-proxy+nodeport'));
  // The local backend's direct path is what rows before the column ran: it keys as they do.
  const before = configurationOf({
    line: 2,
    values: { schema_version: '13', backend: 'kind', scenario: 'workload-rollout' },
    counts: {} as never,
    latency: {},
  }).key;
  assert.equal(row('direct'), before);
  assert.notEqual(row('docker-proxy+nodeport'), before);
});
