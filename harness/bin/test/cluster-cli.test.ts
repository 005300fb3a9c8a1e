// `npm run local-cluster` as a user meets it: a real process, Ctrl-C, nothing left behind; `npm run
// cluster`'s commands for your cluster, and its old `up`, which still works and names the new command.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { CLUSTER_PROVIDER } from '../../../clusters/cluster/provider.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { childPids, isAlive } from '../../../lib/test/processes.ts';

const CLI = join(PROJECT_ROOT, 'harness', 'bin', 'cluster.ts');
const LOCAL = join(PROJECT_ROOT, 'harness', 'bin', 'local-cluster.ts');

test('local-cluster prints the addresses; SIGINT tears it down with exit 0 and no process left', async () => {
  const child = execa(process.execPath, [LOCAL, '--address-block', '242', '--no-events'], {
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
  let stdout = '';
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C tears everything down')) resolve();
    });
  });
  await Promise.race([ready, child]);
  assert.match(stdout, /cluster ready in [\d.]+ s/);
  assert.match(stdout, /control plane: xds 127\.242\.0\.200:15010/);
  assert.equal(
    stdout.match(/^ {2}default\/httpbin-\S+\s+node-\d\s+127\.242\.\d+\.\d+\s+127\.242\.\d+\.\d+\s+yes$/gm)
      ?.length,
    3,
  );
  assert.equal(stdout.match(/^ {2}istio-system\/ztunnel-\S+ .* yes$/gm)?.length, 2);
  const ingress = /ingress gateway: (http:\/\/127\.242\.[\d.]+:\d+)\//.exec(stdout)?.[1];
  assert.ok(ingress, 'the gateway address is printed');
  const reply = await fetch(`${ingress}/status/418`);
  assert.equal(reply.status, 418, 'k6 -> gateway -> HBONE -> ztunnel -> httpbin answers');
  const containers = await childPids(child.pid ?? -1);
  assert.equal(containers.length, 6, 'two ztunnels, three httpbin, one gateway');
  child.kill('SIGINT');
  const result = await child;
  assert.equal(result.exitCode, 0, result.stderr);
  assert.match(result.stderr, /every process stopped/);
  assert.deepEqual(containers.filter(isAlive), []);
});

test('local-cluster with bad input exits 2 before starting anything; cluster up, its old name, says the new one', async () => {
  const result = await execa(process.execPath, [LOCAL, '--grace', '-1'], {
    reject: false,
    stdin: 'ignore',
  });
  assert.equal(result.exitCode, 2);
  assert.match(result.stderr, /Expected --grace to be an integer of seconds from 0 to 3600, got "-1"/);
  assert.doesNotMatch(result.stderr, /is now/);
  const old = await execa(process.execPath, [CLI, 'up', '--grace', '-1'], { reject: false, stdin: 'ignore' });
  assert.equal(old.exitCode, 2);
  assert.match(old.stderr, /`npm run cluster -- up` is now `npm run local-cluster` \(same options\)/);
  assert.match(old.stderr, /Expected --grace to be an integer of seconds from 0 to 3600, got "-1"/);
  const timing = await execa(process.execPath, [LOCAL, '--timing', 'bogus=1'], {
    reject: false,
    stdin: 'ignore',
  });
  assert.equal(timing.exitCode, 2);
  assert.match(
    timing.stderr,
    /Expected --timing to be name=milliseconds \(0 to 60000\) with name one of watchFanoutMs/,
  );
});

test("check, cleanup and rbac take an existing cluster's options as its backend declares them", async () => {
  const help = async (command: string): Promise<string> =>
    (await execa(process.execPath, [CLI, command, '--help'], { stdin: 'ignore' })).stdout.replace(
      /\s+/g,
      ' ',
    );
  const declared = (key: string): string => {
    const option = CLUSTER_PROVIDER.options.find((o) => o.key === key);
    assert.ok(option, key);
    return option.description.replace(/^cluster: /, '');
  };
  const keysOf: Record<string, string[]> = {
    check: ['kubeconfig', 'context', 'istio-namespace', 'gateway', 'allow-ztunnel-restart'],
    cleanup: ['kubeconfig', 'context'],
    rbac: ['istio-namespace', 'gateway'],
  };
  for (const [command, keys] of Object.entries(keysOf)) {
    const text = await help(command);
    for (const key of keys)
      assert.ok(text.includes(`--${key}`) && text.includes(declared(key)), `${command} --${key}`);
  }
  assert.match(await help('check'), /\(default: "istio-system\/istio-ingressgateway"\)/);
});
