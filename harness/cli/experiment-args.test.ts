// Every option of `npm run experiment`, fuzzed from the CLI program itself (a new option is fuzzed
// without a line here): bad values are refused through the CLI's own validation entry point with exit
// code 2 and a message naming the option, before anything is written. In process, so all of it runs
// in well under a second; harness/bin/test/experiment-bad-input.test.ts spawns the real CLI for a few.
import assert from 'node:assert/strict';
import { BACKENDS } from '../../clusters/registry.ts';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Option } from 'commander';
import { CommanderError } from 'commander';
import { isHarnessError } from '../../lib/index.ts';
import { k6OutputFile, parseExperimentArgs } from './experiment-args.ts';
import { buildExperimentProgram } from './experiment-program.ts';
import { exitCodeOf } from './run-main.ts';

/** A program whose commander output (errors, help) is kept out of the test's output. */
const quietProgram = () =>
  buildExperimentProgram().configureOutput({
    writeOut: () => undefined,
    writeErr: () => undefined,
    outputError: () => undefined,
  });

/** Bad values for any option that takes one, by kind. */
const BAD_VALUES: [kind: string, value: string][] = [
  ['empty', ''],
  ['blank', '  '],
  ['negative', '-1'],
  ['huge', '9'.repeat(40)],
  ['huge duration', `${'9'.repeat(400)}h`],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['wrong unit', '60x'],
  ['wrong unit (days)', '1d'],
  ['exponent', '1e3'],
  ['wrong type (object)', '{"a":1}'],
  ['wrong type (list)', '[1,2]'],
  ['path that cannot be written', '/proc/nonexistent/out'],
];

/**
 * Values from BAD_VALUES an option takes by design, and why. Checked to be accepted, so this table
 * cannot outlive the behaviour it describes.
 */
const ACCEPTED: Readonly<Record<string, { values: readonly string[]; why: string }>> = {
  '--path': { values: ['/proc/nonexistent/out'], why: 'a URL path on httpbin, not a file' },
  '--results-dir': {
    values: ['9'.repeat(40), 'NaN', 'Infinity', '60x', '1d', '1e3', '{"a":1}', '[1,2]'],
    why: 'a folder name like any other, made in the current folder',
  },
  '--retry-on': { values: ['', '  '], why: "Envoy's empty retry_on: no retries" },
  '--context': {
    values: ['9'.repeat(40), 'NaN', 'Infinity', '60x', '1d', '1e3'],
    why: 'a context name like any other; the preflight checks it against the kubeconfig before anything starts',
  },
  '--istio-namespace': {
    values: ['9'.repeat(40), '60x', '1d', '1e3'],
    why: 'a namespace name like any other (a DNS label); the preflight looks Istio up there before anything starts',
  },
  '--node-image': {
    values: ['60x', '1d', '1e3'],
    why: 'an image name like any other (lower-case letters and digits); the engine is asked for it before anything starts',
  },
};

/** A flag given with no value, or a switch given one: commander's own refusals. */
function shapeCases(option: Option): string[][] {
  const long = option.long ?? '';
  return option.isBoolean() ? [[`${long}=yes`], [`${long}=`], [`${long}=1`]] : [[long]];
}

interface Outcome {
  exitCode: number;
  message: string;
}

async function outcomeOf(args: string[], resultsDir: string): Promise<Outcome | undefined> {
  try {
    await parseExperimentArgs(['--results-dir', resultsDir, ...args], quietProgram());
    return undefined;
  } catch (err) {
    const message = err instanceof CommanderError || isHarnessError(err) ? err.message : String(err);
    return { exitCode: exitCodeOf(err), message };
  }
}

const fuzzed = buildExperimentProgram().options.filter((o) => o.long !== undefined);

test('the fuzz covers every option of the program', () => {
  assert.ok(fuzzed.length >= 30, `${String(fuzzed.length)} options`);
  for (const long of ['--results-dir', '--duration', '--k6-out', '--config', '--suite', '--netns'])
    assert.ok(
      fuzzed.some((o) => o.long === long),
      long,
    );
});

test('every option refuses bad values with exit 2, naming the option, writing nothing', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fuzz-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const resultsDir = join(dir, 'results');
  const startedMs = performance.now();
  let cases = 0;
  for (const option of fuzzed) {
    const long = option.long ?? '';
    const accepted = ACCEPTED[long];
    const all: { kind: string; args: string[]; value?: string }[] = [
      ...(option.isBoolean()
        ? []
        : BAD_VALUES.map(([kind, value]) => ({ kind, args: [long, value], value }))),
      ...shapeCases(option).map((args) => ({ kind: 'shape', args })),
    ];
    for (const { kind, args, value } of all) {
      cases++;
      const outcome = await outcomeOf(args, resultsDir);
      if (value !== undefined && accepted?.values.includes(value)) {
        // A backend's own option is accepted with that backend (with another it is refused as such).
        const backend = BACKENDS.find((b) => b.options.some((o) => `--${o.key}` === long))?.name;
        const own = backend ? await outcomeOf(['--backend', backend, ...args], resultsDir) : outcome;
        assert.equal(own, undefined, `${long} ${JSON.stringify(value)} is accepted: ${accepted.why}`);
        continue;
      }
      const what = `${kind}: ${JSON.stringify(args)}`;
      assert.ok(outcome, `${what} was accepted`);
      assert.equal(outcome.exitCode, 2, `${what}: ${outcome.message}`);
      assert.ok(outcome.message.includes(long), `${what}: the message names ${long}: ${outcome.message}`);
    }
  }
  assert.equal(existsSync(resultsDir), false, 'no results folder');
  assert.deepEqual(await readdir(dir), []);
  const tookMs = performance.now() - startedMs;
  t.diagnostic(`${String(cases)} cases in ${tookMs.toFixed(0)} ms`);
});

test('the k6 outputs that name a file outside the run folder', () => {
  const table: [string, string | undefined][] = [
    ['json=/data/k6.json', '/data/k6.json'],
    ['csv=/data/k6.csv', '/data/k6.csv'],
    ['web-dashboard=export=/data/k6.html', '/data/k6.html'],
    ['web-dashboard=period=2s&export=/data/k6.html', '/data/k6.html'],
    ['json=k6.json', undefined],
    ['web-dashboard', undefined],
    ['influxdb=http://127.0.0.1:8086/k6', undefined],
  ];
  for (const [output, file] of table) assert.equal(k6OutputFile(output), file, output);
});
