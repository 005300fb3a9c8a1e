// `npm run experiment -- --netns` as a user meets it: each httpbin pod in a network namespace of its
// own, our ztunnel binding its listeners inside them; and Ctrl-C leaving no namespace, veth or
// process behind. Root only (skipped, saying why, without it).
import assert from 'node:assert/strict';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { netnsUnavailable } from '../../../clusters/netns/network-world.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { describeAlive, descendantPids, isAlive, untilLoadStarts } from '../../../lib/test/processes.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'experiment.ts');
const skip = await netnsUnavailable();
type Row = Record<string, string>;

async function readRows(path: string): Promise<Row[]> {
  return parse<Row>(await readFile(path, 'utf8'), { columns: true });
}

const netnsOf = (pid: number | 'self'): string | undefined => {
  try {
    return readlinkSync(`/proc/${String(pid)}/ns/net`);
  } catch {
    return undefined;
  }
};

test(
  'E2 with --netns: pods in namespaces of their own, served by our ztunnel there, their veths gone with them',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'netns-e2-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const result = await execa(
      process.execPath,
      [
        CLI,
        ...['--scenario', 'workload-rollout', '--netns', '--duration', '10', '--restart-at', '2'],
        ...['--results-dir', dir],
      ],
      { reject: false, stdin: 'ignore', timeout: 120_000 },
    );
    assert.equal(result.exitCode === 0 || result.exitCode === 1, true, result.stderr);
    const [row] = await readRows(join(dir, 'runs.csv'));
    assert.ok(row, result.stdout);
    assert.equal(row['pod_network'], 'netns');
    assert.ok(Number(row['ok']) > 300, `requests answered: ${String(row['ok'])}`);
    const runDir = join(dir, row['run_id'] ?? '');
    const logs = await readdir(join(runDir, 'pods'));
    const ztunnel = (
      await Promise.all(
        logs
          .filter((n) => n.startsWith('istio-system_ztunnel-'))
          .map((n) => readFile(join(runDir, 'pods', n), 'utf8')),
      )
    ).join('\n');
    const added =
      ztunnel.match(/\tpod added\t.*addr=10\.\d+\.\d+\.\d+ .*netns="\/proc\/\d+\/ns\/net"/g) ?? [];
    assert.equal(
      added.length,
      6,
      'three pods before the rollout and three after, each added with its namespace',
    );
    assert.match(
      ztunnel,
      /\tinfo\taccess\tconnection complete\t.*src\.identity="spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istio-ingressgateway"/,
      "the gateway's tunnels ended in our ztunnel",
    );
    const events = await readRows(join(runDir, 'events.csv'));
    const veths = events.filter(
      (e) => e['kind'] === 'sandbox-removed' && /gone with the pod's veth/.test(e['detail'] ?? ''),
    );
    assert.equal(veths.length, 3, "each old pod's veth deleted at CNI DEL");
    assert.equal(events.filter((e) => e['kind'] === 'del-workload').length, 3);
  },
);

test(
  'Ctrl-C during a --netns run: aborted run folder, and no namespace, veth or process left',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'netns-sigint-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const child = execa(
      process.execPath,
      [CLI, ...['--scenario', 'workload-rollout', '--netns', '--duration', '30'], ...['--results-dir', dir]],
      { reject: false, stdin: 'ignore', timeout: 90_000 },
    );
    await untilLoadStarts(child);
    const pids = await descendantPids(child.pid ?? -1);
    const host = netnsOf('self');
    const namespaces = new Set(pids.map(netnsOf).filter((n): n is string => n !== undefined && n !== host));
    // The cluster's namespace and one per httpbin pod, at least.
    assert.ok(namespaces.size >= 4, `namespaces held by the run: ${[...namespaces].join(' ')}`);
    // The cluster's namespace is the one with the uplink: its address names the world's octet.
    let octet: string | undefined;
    for (const pid of pids) {
      const addr = await execa(
        'nsenter',
        [`--net=/proc/${String(pid)}/ns/net`, 'ip', '-o', '-4', 'addr', 'show', 'dev', 'uplink'],
        { reject: false },
      );
      octet ??= /inet 10\.(\d+)\.255\.2\//.exec(addr.stdout)?.[1];
    }
    assert.ok(octet, 'the cluster namespace and its uplink');
    assert.ok(existsSync(`/sys/class/net/zh${octet}`), 'the uplink exists during the run');
    child.kill('SIGINT');
    const result = await child;
    assert.equal(result.exitCode, 130, result.stderr);
    const [row] = await readRows(join(dir, 'runs.csv'));
    assert.equal(row?.['verdict'], 'aborted');
    // A process whose parent went first is reaped by init a moment after it dies (the gateway's
    // workers): a zombie has ended, and holds no namespace.
    const running = (await describeAlive(pids)).filter((ps) => !/^\s*\d+\s+\d+\s+Z/.test(ps));
    assert.deepEqual(running, [], 'no process of the run left');
    // A namespace outlives its processes only while something holds it: nothing of ours does now,
    // and the uplink (in the cluster's namespace) goes when the kernel frees that namespace.
    const until = Date.now() + 5000;
    while (existsSync(`/sys/class/net/zh${octet}`) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(!existsSync(`/sys/class/net/zh${octet}`), `zh${octet} is left`);
    const everyone = await descendantPids(1);
    const left = everyone.filter((pid) => isAlive(pid) && namespaces.has(netnsOf(pid) ?? ''));
    assert.deepEqual(left, [], "no process in any of the run's namespaces");
  },
);
