// E2 with istio/ztunnel's own binary on the destination side (--ztunnel-impl istio), end to end: a
// real process per httpbin pod in the pod's own network namespace, reached by the gateway over
// HBONE. Needs the binary (ZTUNNEL_BINARY, built with --features testing), its test root
// (ZTUNNEL_TEST_ROOT) and root; skipped, saying so, without them.
import assert from 'node:assert/strict';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { parse } from 'csv-parse/sync';
import { realZtunnelHere } from '../../campaigns/conformance/real-target.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const real = await realZtunnelHere(process.env);
const skip = typeof real === 'string' ? real : false;

test(
  'E2 with istio/ztunnel beside each httpbin pod: its access log, the namespaces gone, the row says so',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'istio-e2-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const result = await execa(
      process.execPath,
      [
        join(PROJECT_ROOT, 'harness/bin/experiment.ts'),
        ...[
          '--scenario',
          'workload-rollout',
          '--ztunnel-impl',
          'istio',
          '--duration',
          '12',
          '--restart-at',
          '3',
        ],
        ...['--results-dir', dir],
      ],
      { reject: false, stdin: 'ignore', timeout: 120_000 },
    );
    assert.equal(result.exitCode === 0 || result.exitCode === 1, true, result.stderr);
    const [runDir] = (await readdir(dir)).filter((n) => n.endsWith('workload-rollout'));
    assert.ok(runDir, result.stdout);
    const [row] = parse<Record<string, string>>(await readFile(join(dir, runDir, 'summary.csv')), {
      columns: true,
    });
    assert.equal(row?.['ztunnel_impl'], 'istio');
    const pods = await readdir(join(dir, runDir, 'pods'));
    const ztunnelLogs = pods.filter((n) => n.endsWith('_istio-ztunnel.log'));
    assert.equal(ztunnelLogs.length, 6, 'three pods before the rollout and three after, each with its own');
    const served = await Promise.all(ztunnelLogs.map((n) => readFile(join(dir, runDir, 'pods', n), 'utf8')));
    assert.ok(
      served.some((log) =>
        /\tinfo\taccess\tconnection complete\t.*src\.identity="spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istio-ingressgateway"/.test(
          log,
        ),
      ),
      "the gateway's tunnels went through istio/ztunnel",
    );
    const events = await readFile(join(dir, runDir, 'events.csv'), 'utf8');
    assert.equal(
      (events.match(/gone with the pod's veth/g) ?? []).length,
      3,
      "each old pod's namespace removed",
    );
  },
);
