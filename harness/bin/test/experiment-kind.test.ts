// `npm run experiment -- --backend kind` without Docker: the CLI as a process, kind and docker as
// fakes on PATH, the Kubernetes API as a double whose stand-in controller rolls every workload out
// at once, and an HTTP server on the ingress port standing in for the gateway behind kind's port
// mapping. What this proves: the kind path runs end to end - tools checked, images built and loaded,
// istiod and the mesh applied for kind, the restart sent at --restart-at as kubectl sends it, k6
// driven through the ingress port, the run folder and runs.csv written, the cluster deleted. What
// it cannot prove: anything a real cluster does (README, kind backend).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { createFakeKindAndDocker } from '../../../clusters/kind/test/fake-kind-docker.ts';
import { startKindDoubles } from '../../../clusters/kind/test/kind-fixtures.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');

test('--backend kind refuses what kind cannot run, and a missing Docker engine, before writing anything (exit 2)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-kind-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fakes = await createFakeKindAndDocker('');
  const run = (args: string[], env: Record<string, string> = {}) =>
    execa(process.execPath, [CLI, '--backend', 'kind', ...args, '--results-dir', dir], {
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
      env: { PATH: fakes.path, FAKE_DIR: fakes.dir, ZTUNNEL_HARNESS_KIND_PROVISION: 'none', ...env },
    });
  // One message shape for everything kind lacks (clusters/capabilities.ts): what asked, the value,
  // the capability it needs and why, and the backend that has it.
  const refusals: [string[], RegExp][] = [
    [
      // kind's node-address mode, asked for by name, cannot serve the ztunnel upgrade.
      ['--ztunnel-mode', 'node-address'],
      /--ztunnel-mode to be in-pod with --scenario ztunnel-upgrade, got "node-address"/,
    ],
    [
      ['--scenario', 'workload-rollout', '--drain-strategy', 'evict-on-removal'],
      /--drain-strategy to be something --backend kind can run, got "evict-on-removal"; it needs in-pod outbound capture and istio\/ztunnel#1191's drain hooks/,
    ],
    [
      // The debounce is istiod's setting on kind; the rest of the model is measured there.
      ['--scenario', 'workload-rollout', '--timing', 'debounceQuietMs=50', '--timing', 'pushLatencyMs=50'],
      /--timing to be something --backend kind can run, got "pushLatencyMs"; it needs a timing model .*kind measures the real latencies/,
    ],
    // A suite runs on kind what kind can run (the rest marked in its table); nothing at all: refused.
    [
      ['--suite', 'seeds', '--only', 'E4'],
      /--suite to be a suite with an entry --backend kind can run, got "seeds --only E4"; not available on kind: Expected --scenario to be something --backend kind can run, got "sidecar-drain"/,
    ],
    [
      ['--scenario', 'workload-rollout', '--mesh-client', '20'],
      /--mesh-client to be something --backend kind can run, got 20/,
    ],
    [
      ['--scenario', 'sidecar-drain'],
      /--scenario to be something --backend kind can run, got "sidecar-drain"; it needs a sidecar and its app in one pod/,
    ],
    [
      // A plain gateway in front of ambient pods would bypass a node-address ztunnel (issue 33, #9).
      ['--scenario', 'workload-rollout', '--gateway-mode', 'plain', '--ztunnel-mode', 'node-address'],
      /--ztunnel-mode to be in-pod with --gateway-mode plain, got "node-address"; .*bypass ztunnel/,
    ],
    [
      ['--scenario', 'workload-rollout', '--kind-ingress-port', '70000'],
      /an integer from 1 to 65535, got "70000"/,
    ],
  ];
  for (const [args, message] of refusals) {
    const result = await run(args);
    assert.equal(result.exitCode, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  assert.deepEqual(await fakes.calls(), [], 'refused before asking Docker or kind anything');
  const down = await run(['--scenario', 'workload-rollout'], { FAKE_DOCKER_DOWN: '1' });
  assert.equal(down.exitCode, 2, down.stderr);
  assert.match(
    down.stderr,
    /Docker is installed but its engine does not answer .*Cannot connect to the Docker daemon/,
  );
  assert.deepEqual(await readdir(dir), [], 'nothing written');
});

test(
  '--backend kind runs workload-rollout end to end against fake kind/docker and the API double',
  { timeout: 90_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-kind-run-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const { api, fakes } = await startKindDoubles(t, 'ztunnel-harness');
    // The gateway behind kind's port mapping: 200 for the readiness requests, 418 with go-httpbin's
    // body for the load's. (fortio 1.66 waits for the connection to close on an OK answer whose
    // chunked body is empty, which is what Node sends for a bare end(): the length is set here.)
    const ingress = createServer((req, res) => {
      const body = req.url === '/get' ? '{}' : "I'm a teapot!";
      res.writeHead(req.url === '/get' ? 200 : 418, { 'content-length': Buffer.byteLength(body) }).end(body);
    });
    ingress.listen(0, '127.0.0.1');
    await once(ingress, 'listening');
    t.after(() => {
      ingress.close();
    });
    const port = (ingress.address() as AddressInfo).port;
    const result = await execa(
      process.execPath,
      [
        CLI,
        '--backend',
        'kind',
        '--scenario',
        'workload-rollout',
        '--qps',
        '20',
        '-c',
        '2',
        '--duration',
        '4',
        '--restart-at',
        '2',
        '--kind-ingress-port',
        String(port),
        // fortio on this host, through the ingress port (kind's default runs it as a pod).
        '--load-from',
        'host',
        '--results-dir',
        dir,
      ],
      {
        reject: false,
        stdin: 'ignore',
        timeout: 80_000,
        env: { PATH: fakes.path, FAKE_DIR: fakes.dir, ZTUNNEL_HARNESS_KIND_PROVISION: 'none' },
      },
    );
    assert.equal(result.exitCode, 0, result.stdout + result.stderr);

    const calls = (await fakes.calls()).map((c) => `${c.tool} ${c.args.slice(0, 2).join(' ')}`);
    // ztunnel, proxyv2 (pilot-agent + Envoy, for the gateway and the sidecar), client, istiod,
    // httpbin (go-httpbin built here), fortio (the load's pod with --load-from cluster), istio-cni's
    // node agent and the fault server (in httpbin's place with --app-shutdown echo).
    assert.equal(calls.filter((c) => c === 'docker build --target').length, 8, 'eight images built');
    for (const step of ['kind create cluster', 'kind load docker-image', 'kind delete cluster'])
      assert.ok(calls.includes(step), step);
    // kind keeps to a private kubeconfig of the run's (never ~/.kube/config, never the run folder,
    // which gets shared), removed with the cluster.
    const runFolder = /run folder: (\S+)/.exec(result.stdout)?.[1] ?? '';
    const kindCalls = await fakes.calls();
    const kubeconfigs = ['create', 'delete'].map((verb) => {
      const call = kindCalls.find((c) => c.tool === 'kind' && c.args[0] === verb);
      return call?.args[call.args.indexOf('--kubeconfig') + 1] ?? '';
    });
    assert.equal(kubeconfigs[0], kubeconfigs[1]);
    assert.equal(dirname(kubeconfigs[0] ?? ''), join(tmpdir(), basename(dirname(kubeconfigs[0] ?? ''))));
    assert.match(kubeconfigs[0] ?? '', /\/ztunnel-harness-kube-[0-9a-f]{16}\/kubeconfig$/);
    assert.ok(!existsSync(dirname(kubeconfigs[0] ?? '')), 'the private folder went with the cluster');
    assert.ok(!existsSync(join(runFolder, 'kubeconfig')), 'no kubeconfig in the run folder');
    assert.match(result.stderr, /kind: the cluster's kubeconfig is \S+\/kubeconfig \(KUBECONFIG=/);

    const patches = api.requests.filter((r) => r.method === 'PATCH');
    const ztunnel = patches.find((r) => r.path.endsWith('/daemonsets/ztunnel'))?.body as
      { spec: { template: { spec: { hostNetwork?: boolean; volumes?: { name: string }[] } } } } | undefined;
    assert.equal(ztunnel?.spec.template.spec.hostNetwork, undefined, 'ztunnel in the pods (in-pod mode)');
    assert.ok(ztunnel?.spec.template.spec.volumes?.some((v) => v.name === 'cni-netns-dir'));
    assert.ok(
      patches.some((r) => r.path.endsWith('/daemonsets/istio-cni-node')),
      "istio-cni's node agent applied",
    );
    const gatewayService = patches.find((r) => r.path.endsWith('/services/istio-ingressgateway'))?.body as
      { spec: { type?: string } } | undefined;
    assert.equal(gatewayService?.spec.type, 'NodePort');
    const restart = patches.find(
      (r) =>
        r.path === '/apis/apps/v1/namespaces/default/deployments/httpbin' &&
        r.query['fieldManager'] === 'kubectl-rollout',
    );
    assert.equal(restart?.contentType, 'application/strategic-merge-patch+json');

    const rows = parse<Record<string, string>>(await readFile(join(dir, 'runs.csv'), 'utf8'), {
      columns: true,
    });
    assert.equal(rows.length, 1);
    const row = rows[0] ?? {};
    assert.equal(row['backend'], 'kind');
    assert.equal(row['ztunnel_mode'], 'in-pod');
    assert.equal(row['ingress_path'], 'docker-proxy+nodeport');
    assert.equal(row['kubernetes_version'], 'v1.35.0');
    assert.equal(row['verdict'], 'pass');
    assert.ok(
      Number(row['requests']) >= 60,
      `the load generator sent through the ingress port: ${row['requests'] ?? ''}`,
    );
    const runDir = (await readdir(dir)).find((f) => f.endsWith('-workload-rollout'));
    assert.ok(runDir);
    const events = await readFile(join(dir, runDir, 'events.csv'), 'utf8');
    for (const kind of ['rollout-started', 'rollout-status-complete', 'rollout-old-pods-gone'])
      assert.match(events, new RegExp(kind));
  },
);

test('a kind run that could not run exits 3, not the 1 of a failed verdict, and check-runs refuses its results', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-kind-broken-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fakes = await createFakeKindAndDocker('');
  const result = await execa(
    process.execPath,
    [CLI, '--backend', 'kind', '--scenario', 'workload-rollout', '--results-dir', dir],
    {
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
      env: {
        PATH: fakes.path,
        FAKE_DIR: fakes.dir,
        ZTUNNEL_HARNESS_KIND_PROVISION: 'none',
        FAKE_KIND_CREATE_FAIL: '1',
      },
    },
  );
  assert.equal(result.exitCode, 3, result.stdout + result.stderr);
  const rows = parse<Record<string, string>>(await readFile(join(dir, 'runs.csv'), 'utf8'), {
    columns: true,
  });
  const [row] = rows;
  assert.ok(row);
  assert.equal(row['verdict'], 'aborted');
  assert.match(row['reason'] ?? '', /failed to create cluster/);
  // The nightly job's second check: the aborted row is no result.
  const check = await execa(
    process.execPath,
    [
      join(PROJECT_ROOT, 'harness', 'bin', 'check-runs.ts'),
      join(dir, 'runs.csv'),
      '--rows',
      '1',
      '--backend',
      'kind',
    ],
    { reject: false, stdin: 'ignore', timeout: 20_000 },
  );
  assert.equal(check.exitCode, 1, check.stdout + check.stderr);
  assert.match(check.stderr, /0 complete runs, expected 1/);
});
