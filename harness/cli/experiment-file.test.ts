// Experiment files and run folders as input, and bad input of every kind refused before anything
// runs (exit 2 material: a BadInput error naming the flag or key and the value received).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { parse } from 'yaml';
import { experimentArgsOf } from './experiment-file.ts';
import { formatRunConfig, writeRunConfig } from '../config/run-config.ts';
import { EVERY_RUNNABLE_FIELD, resolve, SCOPED_RUNS } from '../config/test/experiment-fixtures.ts';

async function tempDir(t: { after(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'experiment-file-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('experiments as data', () => {
  it('every parameter survives params -> experiment file -> argv -> params', async () => {
    const viaFile = (p: ExperimentParams): string[] => experimentArgsOf(parse(formatRunConfig(p, 'x')), 'x');
    assert.deepEqual(await resolve(viaFile(EVERY_RUNNABLE_FIELD)), EVERY_RUNNABLE_FIELD);
    const loadOnly = { ...EVERY_RUNNABLE_FIELD, restartAtS: undefined };
    assert.deepEqual(await resolve(viaFile(loadOnly)), loadOnly);
    for (const argv of SCOPED_RUNS) {
      const scoped = await resolve(argv);
      assert.deepEqual(await resolve(viaFile(scoped)), scoped, argv.join(' '));
    }
  });

  it('--from <run dir> resolves exactly what the run recorded; flags override it', async (t) => {
    const dir = await tempDir(t);
    await writeRunConfig(dir, EVERY_RUNNABLE_FIELD);
    assert.deepEqual(await resolve(['--from', dir]), EVERY_RUNNABLE_FIELD);
    assert.deepEqual(await resolve(['--from', dir, '-c', '5']), { ...EVERY_RUNNABLE_FIELD, connections: 5 });
  });

  it('--config reads the committed examples; YAML and JSON alike', async (t) => {
    const e1 = await resolve(['--config', join(PROJECT_ROOT, 'examples', 'e1-grace-120.yaml')]);
    assert.deepEqual(
      { s: e1.scenario, c: e1.connections, g: e1.graceS, d: e1.durationS, r: e1.restartAtS },
      { s: 'ztunnel-upgrade', c: 100, g: 120, d: 200, r: 200 / 3 },
    );
    const quick = await resolve(['--config', join(PROJECT_ROOT, 'examples', 'quick-rollout.yaml')]);
    assert.equal(quick.restartAtS, 4);
    const dir = await tempDir(t);
    await writeFile(
      join(dir, 'e.json'),
      '{"scenario": "workload-rollout", "timing": {"pushLatencyMs": 400}}',
    );
    assert.deepEqual((await resolve(['--config', join(dir, 'e.json')])).timing, { pushLatencyMs: 400 });
  });
});

/** Malformed input: argv (a file's text, when given, is written to FILE first) and the message. */
const BAD: [string[], RegExp, string?][] = [
  // Numeric bounds and syntax.
  [['--qps', 'abc'], /--qps to be a number from 0 to 100000, got "abc"/],
  [['--qps', '-1'], /--qps/],
  [['--qps', '1e5'], /--qps .*got "1e5"/],
  [['--qps', '0x10'], /--qps .*got "0x10"/],
  [['--qps', '200000'], /--qps/],
  [['-c', '0'], /--connections to be an integer from 1 to 10000, got "0"/],
  [['-c', '1000000'], /--connections .*got "1000000"/],
  [['-c', '1.5'], /--connections/],
  [['-c', ' 5'], /--connections .*got " 5"/],
  [['--duration', '0'], /--duration/],
  [['--duration', '1e9'], /--duration .*got "1e9"/],
  [['--duration', '100000'], /--duration to be a number of seconds from 1 to 86400/],
  [['--timeout', '0'], /--timeout/],
  [['--timeout', '601'], /--timeout/],
  [['--grace', '-1'], /--grace to be an integer of seconds from 0 to 3600, got "-1"/],
  [['--grace', '1.5'], /--grace/],
  [['--grace', '7200'], /--grace/],
  [['--replicas', '99'], /--replicas to be an integer from 1 to 4, got "99"/],
  [['--replicas', '0'], /--replicas/],
  [['--gateway-concurrency', '17'], /--gateway-concurrency/],
  [['--max-failed', '-1'], /--max-failed/],
  [['--max-failed', '2.5'], /--max-failed/],
  [['--repeat', '0'], /--repeat/],
  [['--repeat', '1000'], /--repeat/],
  [['--prestop-sleep', 'x'], /--prestop-sleep/],
  [['--prestop-sleep', '100000'], /--prestop-sleep/],
  [['--max-connection-duration', '-5'], /--max-connection-duration/],
  [['--hbone-idle-timeout', 'Infinity'], /--hbone-idle-timeout .*got "Infinity"/],
  [['--mesh-client', '5000'], /--mesh-client to be a number from 0 to 1000/],
  [['--kind-ingress-port', '70000'], /--kind-ingress-port/],
  [['--timing', 'pushLatencyMs=abc'], /--timing to be name=milliseconds/],
  [['--timing', 'pushLatencyMs=999999'], /--timing .*0 to 60000/],
  [['--timing', 'noSuchStep=5'], /--timing/],
  [['--restart-at', '99', '--duration', '10'], /--restart-at to be a number of seconds in \[0, --duration\)/],
  [['--restart-at', 'soon'], /--restart-at/],
  [['--threshold', 'p99<500'], /--threshold to be metric<op>number/],
  [['--k6-out', 'JSON file'], /--k6-out to be a k6 output/],
  [['--threshold', 'p99_ms=500'], /--threshold/],
  [['--threshold', 'p99_ms<fast'], /--threshold/],
  [['--threshold', 'failed_rate<0x1'], /--threshold/],
  // Choices and syntax.
  [['--scenario', 'nope'], /--scenario to be one of/],
  [['--backend', 'k3d'], /--backend to be one of local, kind/],
  [['--mesh', 'sidecar'], /--mesh to be one of ambient, off/],
  [['--gateway-mode', 'grpc'], /--gateway-mode/],
  [['--drain-strategy', 'early'], /--drain-strategy/],
  [['--tcp-migrate-req', '2'], /--tcp-migrate-req to be one of 0, 1/],
  [['--retry-on', 'reset,bogus'], /--retry-on .*bogus/],
  [['--path', 'status/418'], /--path to be a URL path starting with "\/"/],
  // Files.
  [
    ['--config', '/no/such/file.yaml'],
    /--config to be a readable YAML or JSON experiment file, got "\/no\/such\/file.yaml"/,
  ],
  [['--from', '/no/such/run'], /--from to be a readable YAML or JSON experiment file/],
  [['--config', 'FILE'], /key "conections" to be an option name/, 'conections: 100\n'],
  [['--config', 'FILE'], /key grace to be a number or a string, got \[1,2\]/, 'grace: [1, 2]\n'],
  [['--config', 'FILE'], /key pool-backoff to be true or false, got "yes"/, 'pool-backoff: "yes"\n'],
  [
    ['--config', 'FILE'],
    /valid option values.*Expected --connections to be an integer from 1 to 10000, got "0"/,
    'connections: 0\n',
  ],
  [['--config', 'FILE'], /YAML or JSON/, 'scenario: [unclosed\n'],
  [['--config', 'FILE'], /key threshold to be a list of strings/, 'threshold: p99_ms<500\n'],
  [['--config', 'FILE'], /--threshold to be metric<op>number/, 'threshold: [p99<500]\n'],
  [['--config', 'FILE'], /the file to be a map of option names to values/, '- a\n- list\n'],
  [
    ['--config', 'FILE'],
    /key timing.pushLatencyMs to be a map of timing names to milliseconds/,
    'timing: {pushLatencyMs: fast}\n',
  ],
  [['--config', 'FILE', '--from', '/tmp'], /--from to be not with --config/, 'qps: 1\n'],
  [['--config', 'FILE', '--suite', 'seeds'], /--config to be not with --suite/, 'qps: 1\n'],
];

describe('bad input is refused before anything runs, naming what and the value', () => {
  for (const [argv, message, fileText] of BAD)
    it(`${argv.join(' ')}${fileText ? ` (file: ${JSON.stringify(fileText)})` : ''}`, async (t) => {
      let args = argv;
      if (fileText !== undefined) {
        const file = join(await tempDir(t), 'experiment.yaml');
        await writeFile(file, fileText);
        args = argv.map((a) => (a === 'FILE' ? file : a));
      }
      await assert.rejects(resolve(args), (err: unknown) => {
        assert.ok(isHarnessError(err, ErrorCode.BadInput), String(err));
        assert.match(err.message, message);
        return true;
      });
    });

  it('counts at least 40 cases', () => {
    assert.ok(BAD.length >= 40, String(BAD.length));
  });
});
