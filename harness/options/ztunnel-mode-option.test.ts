// --ztunnel-mode through the CLI's own parsing: in-pod everywhere by default; node-address only on
// kind, and never with what needs ztunnel in the pods; each refusal exit 2, before anything is written.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import { exitCodeOf } from '../cli/run-main.ts';
import { scenarioManifests } from '../run/scenario-manifests.ts';
import type { ExperimentParams } from './experiment-params.ts';

async function outcome(
  args: string[],
): Promise<{ params?: ExperimentParams | undefined; err?: unknown; written: string[] }> {
  const root = await mkdtemp(join(tmpdir(), 'ztunnel-mode-'));
  const dir = join(root, 'results');
  try {
    const parsed = await parseExperimentArgs(['--results-dir', dir, ...args]).then(
      (p) => ({ params: p.params }),
      (err: unknown) => ({ err }),
    );
    return { ...parsed, written: await readdir(root) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

test('--ztunnel-mode: in-pod by default on both backends; node-address on kind puts ztunnel on the node', async () => {
  for (const backend of ['local', 'kind'])
    assert.equal(
      (await outcome(['--backend', backend, '--scenario', 'workload-rollout'])).params?.ztunnelMode,
      'in-pod',
    );
  const { params } = await outcome([
    '--backend',
    'kind',
    '--scenario',
    'workload-rollout',
    '--ztunnel-mode',
    'node-address',
  ]);
  assert.ok(params);
  const ztunnel = scenarioManifests(params).find(
    (o) => o.kind === 'DaemonSet' && o.metadata?.name === 'ztunnel',
  ) as { spec?: { template?: { spec?: { hostNetwork?: boolean } } } } | undefined;
  assert.equal(ztunnel?.spec?.template?.spec?.hostNetwork, true);
  const inPod = await outcome(['--backend', 'kind', '--scenario', 'workload-rollout']);
  assert.ok(inPod.params);
  const podZtunnel = scenarioManifests(inPod.params).find(
    (o) => o.kind === 'DaemonSet' && o.metadata?.name === 'ztunnel',
  ) as
    { spec?: { template?: { spec?: { hostNetwork?: boolean; volumes?: { name: string }[] } } } } | undefined;
  assert.equal(podZtunnel?.spec?.template?.spec?.hostNetwork, undefined);
  assert.ok(podZtunnel?.spec?.template?.spec?.volumes?.some((v) => v.name === 'cni-netns-dir'));
});

test('--ztunnel-mode node-address is refused (exit 2) on the local backend, with the upgrade scenarios and with a plain gateway', async () => {
  const cases: [string[], RegExp][] = [
    [['--backend', 'local', '--scenario', 'workload-rollout'], /--backend kind/],
    [['--backend', 'kind', '--scenario', 'ztunnel-upgrade'], /in-pod with --scenario ztunnel-upgrade/],
    [
      ['--backend', 'kind', '--scenario', 'workload-rollout', '--gateway-mode', 'plain'],
      /in-pod with --gateway-mode plain/,
    ],
  ];
  for (const [args, why] of cases) {
    const { err, written } = await outcome([...args, '--ztunnel-mode', 'node-address']);
    assert.ok(isHarnessError(err), `${args.join(' ')}: ${String(err)}`);
    assert.equal(exitCodeOf(err), 2);
    assert.match(err.message, /--ztunnel-mode/);
    assert.match(err.message, why);
    assert.deepEqual(written, [], 'nothing written');
  }
});
