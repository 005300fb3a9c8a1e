// One column set for every backend: local and kind rows share one runs.csv.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKEND_COLUMNS } from '../../clusters/backend-columns.ts';
import { createKindBackend } from '../../clusters/kind/index.ts';
import { createLocalBackend } from '../../clusters/local/index.ts';
import { EVERY_FIELD } from '../config/test/experiment-fixtures.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { buildSummaryRow, EMPTY_FACTS, SUMMARY_COLUMN_NAMES, SUMMARY_COLUMNS } from './run-row.ts';

test('a local row and a kind row have the same columns in the same order; each backend fills its own', () => {
  const local = createLocalBackend({ nodeCount: 2 }).describe();
  const kind = createKindBackend({ projectRoot: PROJECT_ROOT }).describe();
  for (const described of [local, kind])
    for (const key of Object.keys(described))
      assert.ok(BACKEND_COLUMNS.includes(key), `${key} is not a backend column`);
  const row = (backend: typeof local) =>
    buildSummaryRow(EVERY_FIELD, undefined, [], { ...EMPTY_FACTS, backend });
  const [l, k] = [row(local), row({ ...kind, backend: 'kind' })];
  assert.deepEqual(Object.keys(l), Object.keys(k));
  assert.equal(l['timing_model'], 'modelled');
  assert.equal(k['timing_model'], 'measured');
  assert.equal(l['kind_cluster'], '');
  assert.equal(k['timing_pushLatencyMs'], '');
  assert.notEqual(l['timing_pushLatencyMs'], '');
});

test("a run with accounted deadlines has the columns planned before it, in the same order (runs.csv's header)", () => {
  const backend = createLocalBackend({ nodeCount: 2 }).describe();
  const planned = buildSummaryRow(EVERY_FIELD, undefined, [], { ...EMPTY_FACTS, backend });
  const account = {
    count: 3,
    closedConnections: 2,
    ratePerS: 200,
    pastGatewayMs: 5,
    reactionMs: 1,
    predicted: 1.2,
    predictedFin: 0.2,
    interval: [0, 4] as [number, number],
    inside: true,
    closeKinds: { resetShare: 0.5, inFlightOnFin: 0 },
    trace: [],
  };
  const ran = buildSummaryRow(EVERY_FIELD, undefined, [], {
    ...EMPTY_FACTS,
    backend,
    deadlines: { atMs: [1000], explanations: [], accounts: [account] },
  });
  assert.deepEqual(Object.keys(ran), Object.keys(planned));
  assert.equal(ran['deadline_reset_share'], '0.50');
});

test('the row has exactly the declared columns, in declared order, each named once with a note', () => {
  const backend = createLocalBackend({ nodeCount: 2 }).describe();
  const row = buildSummaryRow(EVERY_FIELD, undefined, [], { ...EMPTY_FACTS, backend });
  assert.deepEqual(Object.keys(row), SUMMARY_COLUMN_NAMES);
  assert.equal(new Set(SUMMARY_COLUMN_NAMES).size, SUMMARY_COLUMN_NAMES.length);
  assert.deepEqual(
    SUMMARY_COLUMNS.filter((c) => c.note.trim() === '').map((c) => c.name),
    [],
  );
});

test("every scenario's companion columns are declared with the row's (columns/companion-columns.ts), as measures", async () => {
  const { CLUSTER_SCENARIOS } = await import('../run/scenarios/index.ts');
  const { COMPANION_COLUMNS } = await import('./columns/companion-columns.ts');
  const { summaryColumnRoles } = await import('./column-roles.ts');
  const named = Object.values(CLUSTER_SCENARIOS).flatMap((s) => Object.entries(s.companionColumns ?? {}));
  assert.ok(named.length > 0);
  for (const [name, note] of named) {
    assert.equal(COMPANION_COLUMNS[name], note, name);
    assert.equal(summaryColumnRoles().get(name)?.role, 'measure', name);
  }
});
