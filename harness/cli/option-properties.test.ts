// Property-based tests over the whole option table (fast-check): for every option that takes a value,
// random values either are refused at once (exit 2, in under a second, the message naming the option,
// nothing written) or are accepted, and then the run's parameters survive its experiment file
// (experiment.yaml, what `--from` re-runs) exactly. The table-driven fuzz beside it
// (experiment-args.test.ts) keeps the known bad values; this one looks for the ones nobody listed.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CommanderError } from 'commander';
import fc from 'fast-check';
import { isHarnessError } from '../../lib/index.ts';
import { formatRunConfig } from '../config/run-config.ts';
import { parseExperimentArgs } from './experiment-args.ts';
import { buildExperimentProgram } from './experiment-program.ts';
import { exitCodeOf } from './run-main.ts';

const quietProgram = () =>
  buildExperimentProgram().configureOutput({
    writeOut: () => undefined,
    writeErr: () => undefined,
    outputError: () => undefined,
  });

/** Values an option may meet: numbers of every form, durations, words, paths, lists, anything. */
const anyValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.integer({ min: -10, max: 200_000 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc
    .tuple(fc.nat(5000), fc.constantFrom('s', 'ms', 'm', 'h', 'us', 'x', ''))
    .map(([n, u]) => `${String(n)}${u}`),
  fc.constantFrom(
    'none',
    'auto',
    'ambient',
    'off',
    'hbone',
    'plain',
    'ours',
    'istio',
    'local',
    'kind',
    'fortio',
    'k6',
  ),
  fc.constantFrom('pushLatencyMs=100', 'debounceQuietMs=5', 'failed<=3', 'p99_ms<500', 'json=k6.json'),
  fc.constantFrom('connect-failure,reset', 'goaway-on-shutdown-start', 'nodes', '0', '1'),
  fc.webPath(),
  fc
    .array(fc.constantFrom('a', '/', '%', '?', ' ', '..', '~', '\n'), { maxLength: 6 })
    .map((p) => p.join('')),
);

/** The options that take a value (switches are fuzzed by the table-driven test), by long flag. */
const valueOptions = buildExperimentProgram()
  .options.filter((o) => o.long !== undefined && !o.isBoolean())
  .map((o) => o.long ?? '')
  // These name files and folders: their values are paths, checked by output-location's own tests.
  .filter((long) => !['--config', '--from', '--results-dir', '--suite'].includes(long));

interface Outcome {
  refused?: { exitCode: number; message: string };
  params?: unknown;
  tookMs: number;
}

async function outcomeOf(argv: string[]): Promise<Outcome> {
  const startedMs = performance.now();
  try {
    const { params } = await parseExperimentArgs(argv, quietProgram());
    return { params, tookMs: performance.now() - startedMs };
  } catch (err) {
    const message = err instanceof CommanderError || isHarnessError(err) ? err.message : String(err);
    return { refused: { exitCode: exitCodeOf(err), message }, tookMs: performance.now() - startedMs };
  }
}

test('every option: a random value is refused at once naming the option, or it round-trips through experiment.yaml', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'option-properties-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const resultsDir = join(dir, 'results');
  const file = join(dir, 'experiment.yaml');
  let accepted = 0;
  let refused = 0;
  for (const long of valueOptions) {
    await fc.assert(
      fc.asyncProperty(anyValue, async (value) => {
        const outcome = await outcomeOf(['--results-dir', resultsDir, `${long}=${value}`]);
        assert.ok(
          outcome.tookMs < 1000,
          `${long}=${JSON.stringify(value)} took ${outcome.tookMs.toFixed(0)} ms`,
        );
        if (outcome.refused) {
          refused++;
          assert.equal(outcome.refused.exitCode, 2, outcome.refused.message);
          assert.ok(outcome.refused.message.includes(long), `names ${long}: ${outcome.refused.message}`);
          return;
        }
        accepted++;
        if (outcome.params === undefined) return; // a command option (--repeat): not in the file
        await writeFile(file, formatRunConfig(outcome.params as Parameters<typeof formatRunConfig>[0], dir));
        const again = await outcomeOf(['--results-dir', resultsDir, '--config', file]);
        assert.equal(
          again.refused,
          undefined,
          `its own experiment.yaml is refused: ${again.refused?.message ?? ''}`,
        );
        assert.deepEqual(again.params, outcome.params, `${long}=${JSON.stringify(value)} round-trips`);
      }),
      { numRuns: Number(process.env['FC_RUNS'] ?? 60), seed: Number(process.env['FC_SEED'] ?? 41) },
    );
  }
  t.diagnostic(
    `${String(valueOptions.length)} options: ${String(accepted)} values accepted, ${String(refused)} refused`,
  );
  assert.ok(accepted > 0 && refused > 0);
  assert.deepEqual(await readdir(dir), ['experiment.yaml'], 'nothing written but the test file');
});

test('an option scoped to scenarios names only scenarios that exist, and its default is taken with every scenario', async () => {
  const { experimentOptions } = await import('../options/experiment-options.ts');
  const { SCENARIO_NAMES } = await import('../run/scenarios/index.ts');
  const scoped = experimentOptions().filter((o) => o.scenarios);
  assert.ok(scoped.length >= 3, 'prestop-sleep, exit-on-zero-active-connections and project-rate are scoped');
  for (const o of scoped)
    for (const name of o.scenarios ?? []) assert.ok(SCENARIO_NAMES.includes(name), `${o.key}: ${name}`);
  // Every run folder writes every option explicit: a default value never refuses a re-run (on a
  // backend that runs the scenario: the gateway's rollout is kind's).
  const { backendsRunning, CLUSTER_SCENARIOS } = await import('../run/scenarios/index.ts');
  for (const scenario of SCENARIO_NAMES)
    for (const o of scoped) {
      const known = CLUSTER_SCENARIOS[scenario];
      const [backend = 'local'] = known ? backendsRunning(known) : [];
      const args = [
        '--scenario',
        scenario,
        ...(backend === 'local' ? [] : ['--backend', backend]),
        ...(o.default === false ? [] : [`--${o.key}`, String(o.default)]),
      ];
      await assert.doesNotReject(parseExperimentArgs(args, quietProgram()), args.join(' '));
    }
});
