// E1 with istio/ztunnel's own binary as the ztunnel DaemonSet in shared mode (--ztunnel-impl
// istio-shared), end to end through the real Envoy gateway: our node agent speaks ZDS to it, the
// rollout restart starts a second instance per node beside the first (a namespace each), the old one
// drains to its deadline (grace 3 s: TERMINATION_GRACE_PERIOD_SECONDS - 1 = 2 s). Needs the binary
// (ZTUNNEL_BINARY, built with --features testing), its test root (ZTUNNEL_TEST_ROOT), root and Go;
// skipped, saying so, without them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';
import { hostSnapshot, worldLinkIn } from './host-leftovers.ts';
import { sharedModeHere } from './shared-mode-needs.ts';

const here = await sharedModeHere();
const { skip } = here;

test(
  'E1 with istio/ztunnel as the ztunnel DaemonSet (shared mode): ZDS snapshots, the drain to its deadline, HBONE through it, nothing left',
  { skip },
  async (t) => {
    const binary = here.skip === false ? here.real.binary : '';
    const dir = await mkdtemp(join(tmpdir(), 'istio-shared-e1-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const leftovers = await hostSnapshot(binary);
    const result = await execa(
      process.execPath,
      [
        join(PROJECT_ROOT, 'harness/bin/experiment.ts'),
        ...['--scenario', 'ztunnel-upgrade', '--ztunnel-impl', 'istio-shared'],
        ...['--duration', '8', '--restart-at', '2', '--grace', '3', '-c', '10', '--qps', '200'],
        ...['--results-dir', dir],
      ],
      { reject: false, stdin: 'ignore', timeout: 150_000 },
    );
    assert.ok(
      result.exitCode === 0 || result.exitCode === 1,
      `exit ${String(result.exitCode)}: ${result.stderr}`,
    );
    const [runDir] = (await readdir(dir)).filter((n) => n.endsWith('ztunnel-upgrade'));
    assert.ok(runDir, result.stdout);
    const run = join(dir, runDir);
    const [row] = parse<Record<string, string>>(await readFile(join(run, 'summary.csv')), { columns: true });
    assert.equal(row?.['ztunnel_impl'], 'istio-shared');
    assert.equal(row['pod_network'], 'netns');

    const pods = await readdir(join(run, 'pods'));
    const ztunnelLogs = await Promise.all(
      pods
        .filter((n) => n.startsWith('istio-system_ztunnel-'))
        .map(async (n) => ({ name: n, log: await readFile(join(run, 'pods', n), 'utf8') })),
    );
    // Two nodes, each instance replaced once: four, each the binary in shared mode with its snapshot.
    assert.equal(ztunnelLogs.length, 4, pods.join(', '));
    for (const { name, log } of ztunnelLogs) {
      assert.match(log, /\tshared proxy mode - in-pod mode enabled/, name);
      assert.match(log, /\tinpod::statemanager\tpod received, starting proxy\t.*name="httpbin-/, name);
      assert.match(log, /\tproxy::inbound\tlistener established\taddress=\[::\]:15008/, name);
      assert.match(log, /\tinpod::statemanager\treceived snapshot sent/, name);
      assert.match(log, /marking server ready/, name);
      // Its certificates from our CA over gRPC (no FAKE_CA): httpbin's, impersonated, fetched.
      assert.match(
        log,
        /\tdebug\tidentity::manager\tcertificate fetch succeeded\tid=spiffe:\/\/cluster\.local\/ns\/default\/sa\/httpbin/,
        name,
      );
      assert.doesNotMatch(log, /certificate fetch failed/, name);
    }
    // The first instances (SIGTERM at the rollout) drain and are cut at the 2 s deadline.
    const drained = ztunnelLogs.filter(({ log }) =>
      /\tinpod::protocol\tworkload proxy manager: drain requested/.test(log),
    );
    assert.ok(drained.length >= 2, 'both old instances drain');
    const atDeadline = ztunnelLogs.filter(({ log }) => {
      const term = /^(\S+)\tinfo\tsignal::imp\treceived signal SIGTERM/m.exec(log)?.[1];
      const expired = /^(\S+)\twarn\tdrain:proxy\S*\tdrain duration expired with pending connections/m.exec(
        log,
      )?.[1];
      if (!term || !expired) return false;
      const afterMs = Date.parse(expired) - Date.parse(term);
      return afterMs >= 1900 && afterMs <= 2500;
    });
    assert.ok(atDeadline.length >= 1, 'an old instance logs the drain deadline 2 s after its SIGTERM');
    // One deadline per instance in the accounting, though the binary logs one line per pod it serves.
    const deadlines = parse<Record<string, string>>(await readFile(join(run, 'deadlines.csv')), {
      columns: true,
    }).map((d) => d['ztunnel']);
    assert.equal(new Set(deadlines).size, deadlines.length, deadlines.join(', '));
    assert.ok(
      ztunnelLogs.some(({ log }) =>
        /\taccess\tconnection complete\t.*src\.identity="spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istio-ingressgateway"/.test(
          log,
        ),
      ),
      "the gateway's tunnels ended in istio/ztunnel's access log",
    );
    const gatewayLog = await readFile(
      join(run, 'pods', pods.find((n) => n.startsWith('istio-system_istio-ingressgateway')) ?? ''),
      'utf8',
    );
    assert.match(gatewayLog, /envoy:\/\/connect_originate\/10\.\d+\.\d+\.\d+:8080/, 'the gateway sent HBONE');

    assert.deepEqual(
      await leftovers(worldLinkIn(gatewayLog)),
      { binaries: [], holders: [], links: [] },
      'no istio/ztunnel, namespace holder or world link left',
    );
  },
);

/** The CLI with istio/ztunnel's variables as given (empty: not given). */
const runCli = (args: string[], env: Record<string, string>) =>
  execa(process.execPath, [join(PROJECT_ROOT, 'harness/bin/experiment.ts'), ...args], {
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
    env,
  });

test('--ztunnel-impl istio-shared without the binary: exit 2 naming what it needs, nothing written', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const resultsDir = join(dir, 'results');
  const result = await runCli(
    ['--ztunnel-impl', 'istio-shared', '--duration', '5', '--restart-at', '2', '--results-dir', resultsDir],
    { ZTUNNEL_BINARY: '', ZTUNNEL_TEST_ROOT: '' },
  );
  assert.equal(result.exitCode, 2, result.stderr);
  assert.match(result.stderr, /--ztunnel-impl istio-shared .*needs ZTUNNEL_BINARY/);
  assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
});

for (const { args, env, stderr } of [
  // The flag wins over the variable and is named in the refusal.
  {
    args: ['--ztunnel-impl', 'istio-shared', '--ztunnel-binary', '/no/such/ztunnel'],
    env: { ZTUNNEL_BINARY: process.execPath },
    stderr: /--ztunnel-impl istio-shared .*--ztunnel-binary \/no\/such\/ztunnel does not exist/,
  },
  // Our ztunnel is built here: a binary given with it would be recorded but never run.
  {
    args: ['--ztunnel-binary', process.execPath],
    env: {},
    stderr: /--ztunnel-binary .*with --ztunnel-impl istio-shared or istio/,
  },
]) {
  test(`${args.join(' ')}: exit 2, nothing written`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const resultsDir = join(dir, 'results');
    const result = await runCli(
      [...args, '--duration', '5', '--restart-at', '2', '--results-dir', resultsDir],
      {
        ZTUNNEL_BINARY: '',
        ZTUNNEL_TEST_ROOT: '',
        ...env,
      },
    );
    assert.equal(result.exitCode, 2, result.stderr);
    assert.match(result.stderr, stderr);
    assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
  });
}

for (const args of [
  ['--scenario', 'sidecar-drain'],
  ['--mesh', 'off'],
]) {
  test(`--ztunnel-impl istio-shared ${args.join(' ')}: exit 2, naming the scenarios it serves`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const resultsDir = join(dir, 'results');
    const result = await runCli(
      [...args, '--ztunnel-impl', 'istio-shared', '--duration', '40', '--results-dir', resultsDir],
      { ZTUNNEL_BINARY: '/no/such/ztunnel', ZTUNNEL_TEST_ROOT: '/no/such/tls' },
    );
    assert.equal(result.exitCode, 2, result.stderr);
    assert.match(
      result.stderr,
      /--ztunnel-impl to be ours, unless --scenario [a-z|-]*long-lived[a-z|-]* with --mesh ambient, got "istio-shared with/,
    );
    assert.equal(existsSync(resultsDir), false, 'no run folder for bad input');
  });
}
