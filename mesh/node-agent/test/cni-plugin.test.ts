// The CNI plugin script run as the container runtime runs it (sh, the CNI environment, the config on
// stdin), against the node agent's real plugin-event server on a Unix socket.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chainedConflist, cniPluginScript, installCniPlugin, uninstallCniPlugin } from '../cni-plugin.ts';
import { startPluginEventServer } from '../plugin-event-server.ts';
import type { CniAddEvent } from '../plugin-event-server.ts';

const missing = await Promise.all(
  ['jq', 'curl'].map(
    (tool) =>
      new Promise<string | undefined>((resolve) => {
        execFile('sh', ['-c', `command -v ${tool}`], (err) => {
          resolve(err ? tool : undefined);
        });
      }),
  ),
);
const skip = missing.some(Boolean)
  ? `${missing.filter(Boolean).join(' and ')} not installed (kind's node image has both)`
  : false;

const CONF = {
  cniVersion: '0.3.1',
  name: 'kindnet',
  type: 'istio-cni',
  prevResult: {
    interfaces: [{ name: 'eth0' }],
    ips: [{ version: '4', address: '10.244.1.7/24', gateway: '10.244.1.1' }],
  },
};

function runPlugin(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'sh',
      [script],
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
      },
    );
    // DEL, CHECK and VERSION exit without reading their stdin.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(CONF));
  });
}

const ADD_ENV = {
  CNI_COMMAND: 'ADD',
  CNI_NETNS: '/var/run/netns/cni-1234',
  CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=httpbin-abc;K8S_POD_UID=u-1',
};

test(
  'ADD posts the pod to the agent, waits for it, and passes the previous result on; no agent: the pod starts uncaptured',
  { skip },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'cni-plugin-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const socket = join(dir, 'pluginevent.sock');
    const script = join(dir, 'istio-cni');
    await writeFile(script, cniPluginScript(socket), { mode: 0o755 });

    const events: CniAddEvent[] = [];
    let refuse = '';
    const server = await startPluginEventServer(socket, async (event) => {
      await new Promise((r) => setTimeout(r, 50));
      if (refuse) throw new Error(refuse);
      events.push(event);
    });
    const added = await runPlugin(script, ADD_ENV);
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(events, [
      {
        netns: '/var/run/netns/cni-1234',
        podName: 'httpbin-abc',
        podNamespace: 'default',
        ips: ['10.244.1.7'],
      },
    ]);
    assert.deepEqual(JSON.parse(added.stdout), { ...CONF.prevResult, cniVersion: '0.3.1' });

    // The agent's refusal fails the ADD with a CNI error naming it (the sandbox is not created).
    refuse = 'iptables-restore in the pod namespace failed: boom';
    const failed = await runPlugin(script, ADD_ENV);
    assert.equal(failed.code, 1);
    const error = JSON.parse(failed.stdout) as { code: number; msg: string; details: string };
    assert.equal(error.code, 999);
    assert.match(error.details, /boom/);

    // DEL and CHECK do nothing; VERSION says what it speaks.
    for (const command of ['DEL', 'CHECK'])
      assert.deepEqual(await runPlugin(script, { ...ADD_ENV, CNI_COMMAND: command }), {
        code: 0,
        stdout: '',
        stderr: '',
      });
    const version = await runPlugin(script, { CNI_COMMAND: 'VERSION' });
    assert.ok(
      (JSON.parse(version.stdout) as { supportedVersions: string[] }).supportedVersions.includes('0.3.1'),
    );

    await server.close();
    const alone = await runPlugin(script, ADD_ENV);
    assert.equal(alone.code, 0);
    assert.deepEqual(JSON.parse(alone.stdout), { ...CONF.prevResult, cniVersion: '0.3.1' });
    assert.match(alone.stderr, /no node agent .* default\/httpbin-abc is left to its pod watch/);
  },
);

test('the plugin goes last in the chain of the first conflist, once; no conflist yet: nothing chained', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cni-conf-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(await installCniPlugin({ binDir: dir, confDir: dir }), undefined);
  const kindnet = { cniVersion: '0.3.1', name: 'kindnet', plugins: [{ type: 'ptp' }, { type: 'portmap' }] };
  await writeFile(join(dir, '10-kindnet.conflist'), JSON.stringify(kindnet));
  assert.equal(await installCniPlugin({ binDir: dir, confDir: dir }), join(dir, '10-kindnet.conflist'));
  const chained = JSON.parse(await readFile(join(dir, '10-kindnet.conflist'), 'utf8')) as typeof kindnet;
  assert.deepEqual(
    chained.plugins.map((p) => p.type),
    ['ptp', 'portmap', 'istio-cni'],
  );
  assert.equal(chainedConflist(JSON.stringify(chained)), undefined);
  assert.match(await readFile(join(dir, 'istio-cni'), 'utf8'), /^#!\/bin\/sh/);
  // The agent going for good (its DaemonSet deleted): the chain back as the primary CNI wrote it, no plugin.
  await uninstallCniPlugin({ binDir: dir, confDir: dir });
  assert.deepEqual(JSON.parse(await readFile(join(dir, '10-kindnet.conflist'), 'utf8')), kindnet);
  await assert.rejects(readFile(join(dir, 'istio-cni'), 'utf8'), { code: 'ENOENT' });
  await uninstallCniPlugin({ binDir: dir, confDir: dir });
});
