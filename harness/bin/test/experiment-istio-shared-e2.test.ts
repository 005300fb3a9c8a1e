// E2 with istio/ztunnel's own binary as the ztunnel DaemonSet in shared mode (--scenario
// workload-rollout --ztunnel-impl istio-shared): httpbin's pods are replaced while each ztunnel
// instance runs, so the binary must learn the new ones over delta ADS from our control plane
// (mesh/xds/delta-ads-server.ts); a LOCAL_XDS file read at start could not name them, and ztunnel
// refuses HBONE to a pod it has no workload for (`timed out waiting for workload ... from xds`).
// Needs the binary (ZTUNNEL_BINARY, built with --features testing), its test root
// (ZTUNNEL_TEST_ROOT), root, Go and iptables; skipped, saying so, without them.
import assert from 'node:assert/strict';
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

/** The time of the first line matching `pattern` (the log's own RFC 3339 timestamp), or undefined. */
const timeOf = (log: string, pattern: RegExp): number | undefined => {
  const line = log.split('\n').find((l) => pattern.test(l));
  return line === undefined ? undefined : Date.parse(line.split('\t')[0] ?? '');
};

test(
  'E2 with istio/ztunnel as the DaemonSet: pods created after it started arrive over delta ADS and it serves their HBONE',
  { skip },
  async (t) => {
    const binary = here.skip === false ? here.real.binary : '';
    const dir = await mkdtemp(join(tmpdir(), 'istio-shared-e2-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const leftovers = await hostSnapshot(binary);
    const result = await execa(
      process.execPath,
      [
        join(PROJECT_ROOT, 'harness/bin/experiment.ts'),
        ...['--scenario', 'workload-rollout', '--ztunnel-impl', 'istio-shared'],
        ...['--duration', '12', '-c', '4', '--qps', '50', '--results-dir', dir],
      ],
      { reject: false, stdin: 'ignore', timeout: 150_000 },
    );
    // E2's verdict fails on any 503 (the old pods' apps exit under load): 0 or 1, not 2 or 3.
    assert.ok(
      result.exitCode === 0 || result.exitCode === 1,
      `exit ${String(result.exitCode)}: ${result.stderr}`,
    );
    const [runDir] = (await readdir(dir)).filter((n) => n.endsWith('workload-rollout'));
    assert.ok(runDir, result.stdout);
    const run = join(dir, runDir);
    const [row] = parse<Record<string, string>>(await readFile(join(run, 'summary.csv')), { columns: true });
    assert.equal(row?.['ztunnel_impl'], 'istio-shared');

    const pods = await readdir(join(run, 'pods'));
    const logs = await Promise.all(
      pods
        .filter((n) => n.startsWith('istio-system_ztunnel-'))
        .map((n) => readFile(join(run, 'pods', n), 'utf8')),
    );
    assert.equal(logs.length, 2, 'one instance per node, none restarted');
    const servedLater: string[] = [];
    for (const log of logs) {
      assert.match(log, /\txds::client:xds\{id=1\}\tStream established/);
      assert.match(
        log,
        /received response\ttype_url="type\.googleapis\.com\/istio\.security\.Authorization"/,
      );
      assert.doesNotMatch(log, /timed out waiting for workload|sending response.*NACK/);
      const readyAt = timeOf(log, /marking server ready/);
      assert.ok(readyAt !== undefined);
      for (const [, name = ''] of log.matchAll(/\tpod received, starting proxy\t.*name="([^"]+)"/g)) {
        const addedAt = timeOf(log, new RegExp(`pod received, starting proxy\\t.*name="${name}"`));
        const served = new RegExp(
          `\\tinfo\\taccess\\tconnection complete\\t.*src\\.identity="spiffe://cluster\\.local/ns/istio-system/sa/istio-ingressgateway".*dst\\.workload="${name}"`,
        );
        if (addedAt !== undefined && addedAt > readyAt && served.test(log)) servedLater.push(name);
      }
    }
    assert.ok(
      servedLater.length >= 2,
      `the rollout's new pods were added after the instances were Ready and carried the gateway's HBONE (${servedLater.join(', ')})`,
    );
    assert.deepEqual(
      await leftovers(worldLinkIn(logs.join('\n'))),
      { binaries: [], holders: [], links: [] },
      'nothing left on the host',
    );
  },
);
