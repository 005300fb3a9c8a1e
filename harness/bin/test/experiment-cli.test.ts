// The experiment CLI as a user meets it: a real process, exit codes and messages.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';
import { GENERATORS } from '../../load/test/generators.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

async function runCli(args: string[]) {
  return execa(process.execPath, [CLI, ...args], { reject: false, stdin: 'ignore', timeout: 20_000 });
}

// The exit-2 contract end to end, as a user meets it: a process, stderr, nothing written. Every other
// malformed input is refused by the same parsers, tested in process (cli/experiment-file.test.ts).
const BAD_INPUTS: [string[], RegExp][] = [
  [['--qps', 'abc'], /^error: Expected --qps to be a number from 0 to 100000, got "abc"$/m],
  [
    ['--scenario', 'nope'],
    /^error: Expected --scenario to be one of ztunnel-upgrade, workload-rollout, long-lived, sidecar-drain, istio-service-restart, istio-ztunnel-restart, gateway-rollout, ztunnel-restart-during-rollout, cni-restart-during-rollout, cni-missing, cni-missing-during-rollout, got "nope"$/m,
  ],
  [['--no-such-flag'], /unknown option '--no-such-flag'/],
  [
    ['rnu', '--qps', '5'],
    /^error: Expected the command to be one of run, suite, calibrate, load-smoke, or an option \(run is the default\), got "rnu"/m,
  ],
  [['run', '--suite', 'seeds'], /^error: Expected --suite to be not given with run, got "seeds"/m],
  [
    ['--restart-at', '99', '--duration', '10'],
    /--restart-at to be a number of seconds in \[0, --duration\) or "none", got "99"/,
  ],
  [
    ['--suite', 'all'],
    /^error: Expected --suite to be a suite name under suites\/ \(seeds\) or the path of a YAML suite file, got "all"$/m,
  ],
  [
    ['--suite', join(PROJECT_ROOT, 'harness/bin/test/fixtures/broken-suite.yaml')],
    /broken-suite\.yaml: entries\[0\]\.shape\.median\[0\] to be a condition, got "faild == 0"; .*no column "faild"/,
  ],
  [
    ['--suite', 'seeds', '-c', '5'],
    /--connections to be not given with --suite \(each entry sets its own experiment\), got "5"/,
  ],
  [['--config', '/no/such/experiment.yaml'], /--config to be a readable YAML or JSON experiment file/],
  [
    ['--ztunnel-impl', 'istio'],
    /--ztunnel-impl to be ours, unless --scenario workload-rollout\|istio-service-restart with --mesh ambient, got "istio with --scenario ztunnel-upgrade --mesh ambient"/,
  ],
  [['--netns', '--scenario', 'sidecar-drain'], /--netns to be not set with --scenario sidecar-drain/],
  // An option only some scenarios read, set with another: the row would record what nothing did.
  [
    ['--prestop-sleep', '5'],
    /--prestop-sleep to be left at its default \(0\) with --scenario ztunnel-upgrade, got 5; only --scenario workload-rollout\|sidecar-drain read it/,
  ],
  [
    ['--exit-on-zero-active-connections', '--scenario', 'workload-rollout'],
    /--exit-on-zero-active-connections to be left at its default \(false\) with --scenario workload-rollout, got true; only --scenario sidecar-drain/,
  ],
  [
    ['--project-rate', '20000', '--scenario', 'sidecar-drain'],
    /--project-rate to be left at its default \(\d+\) with --scenario sidecar-drain, got 20000/,
  ],
  [
    ['--netns', '--backend', 'kind', '--scenario', 'workload-rollout'],
    /--netns to be something --backend kind can run, got "set"/,
  ],
  // Another backend's option: nothing of this run would read it.
  [
    ['--control-plane', 'istio'],
    /--control-plane to be an option of --backend local, got "istio"; it is --backend kind's/,
  ],
  [
    [
      '--backend',
      'kind',
      '--control-plane',
      'istio',
      '--scenario',
      'workload-rollout',
      '--load-from',
      'host',
    ],
    /--load-from to be cluster with --control-plane istio, got "host"/,
  ],
];

for (const [args, message] of BAD_INPUTS) {
  test(`bad input ${args.join(' ')} exits 2 with a message and writes nothing`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const resultsDir = join(dir, 'results');
    const result = await runCli([...args, '--results-dir', resultsDir]);
    assert.equal(result.exitCode, 2, result.stderr);
    assert.match(result.stderr, message);
    assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
  });
}

test('--ztunnel-impl istio without the binary: exit 2 naming what it needs, nothing written', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const resultsDir = join(dir, 'results');
  const result = await execa(
    process.execPath,
    [CLI, '--scenario', 'workload-rollout', '--ztunnel-impl', 'istio', '--results-dir', resultsDir],
    { reject: false, stdin: 'ignore', timeout: 20_000, env: { ZTUNNEL_BINARY: '', ZTUNNEL_TEST_ROOT: '' } },
  );
  assert.equal(result.exitCode, 2, result.stderr);
  assert.match(result.stderr, /--ztunnel-impl istio .*needs ZTUNNEL_BINARY/);
  assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
});

/** As root, as this suite runs here, the command drops to nobody; as anyone else it runs as is. */
const AS_NON_ROOT =
  process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
/** nobody must be able to run the CLI where this checkout is (a clone under a private folder is not). */
const nonRootSkip =
  AS_NON_ROOT.length === 0 ||
  (await execa(
    AS_NON_ROOT[0] ?? '',
    [...AS_NON_ROOT.slice(1), process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(CLI)})`],
    {
      reject: false,
    },
  ).then((r) => r.exitCode === 0))
    ? false
    : `user nobody cannot read ${CLI} (the checkout is in a private folder)`;

test(
  '--netns as a user without root: exit 2 saying what it needs, nothing written',
  { skip: nonRootSkip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await chmod(dir, 0o777);
    const resultsDir = join(dir, 'results');
    const [file = '', ...args] = [
      ...AS_NON_ROOT,
      process.execPath,
      CLI,
      ...['--scenario', 'workload-rollout', '--netns', '--results-dir', resultsDir],
    ];
    const result = await execa(file, args, {
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
      env: { HOME: dir },
    });
    assert.equal(result.exitCode, 2, result.stderr);
    assert.match(result.stderr, /network namespaces need root \(running as uid \d+\)/);
    assert.match(result.stderr, /run as root on Linux/);
    assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
  },
);

test('--help exits 0 and lists the flags', async () => {
  const result = await runCli(['--help']);
  assert.equal(result.exitCode, 0);
  assert.match(result.stdout, /--qps <n>/);
  assert.match(result.stdout, /--connections <n>/);
  assert.match(result.stdout, /^Commands \(the first word; run is the default\):\n {2}run +one experiment/m);
});

for (const generator of GENERATORS)
  test(
    `calibrate with ${generator.kind}: every outcome class counted exactly (418, 503, refused, reset, EOF, timeout)`,
    { skip: generator.skip },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'cli-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const result = await execa(
        process.execPath,
        [
          CLI,
          'calibrate',
          '--generator',
          generator.kind,
          '--qps',
          '120',
          '-c',
          '20',
          '--duration',
          '2',
          '--results-dir',
          dir,
        ],
        { reject: false, stdin: 'ignore', timeout: 60_000 },
      );
      assert.equal(result.exitCode, 0, result.stdout + result.stderr);
      for (const outcome of ['ok', 'http_503', 'refused', 'reset', 'eof', 'timeout'])
        assert.match(result.stdout, new RegExp(`^  ${outcome} +expected +(\\d+) +got +\\1$`, 'm'), outcome);
      assert.match(result.stdout, /verdict: pass \(exact\)/);
    },
  );
