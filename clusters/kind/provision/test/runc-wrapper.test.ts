import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { findOnPath } from '../../../../lib/install/find-on-path.ts';
import { runcWrapperScript } from '../runc-wrapper.ts';

const hasJq = (await findOnPath('jq', process.env)) !== undefined;
const skip = hasJq ? false : 'needs jq (npm run tools installs it with the Docker engine)';
const ALL = ['CAP_CHOWN', 'CAP_SYS_ADMIN', 'CAP_SYS_RESOURCE', 'CAP_NET_ADMIN'];

async function setUp(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'runc-wrapper-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const wrapper = join(dir, 'runc-harness');
  await writeFile(wrapper, runcWrapperScript(), { mode: 0o755 });
  // A runc that records its arguments.
  const runc = join(dir, 'runc');
  await writeFile(runc, `#!/bin/sh\necho "$@" > "${dir}/args"\n`, { mode: 0o755 });
  const bundle = join(dir, 'bundle');
  await execa('mkdir', [bundle]);
  const config = {
    ociVersion: '1.0.2',
    process: {
      args: ['/pause'],
      oomScoreAdj: -998,
      capabilities: { bounding: ALL, effective: ALL, permitted: ALL },
    },
  };
  await writeFile(join(bundle, 'config.json'), JSON.stringify(config));
  const run = (capBnd: string, args: string[]) =>
    execa('sh', [wrapper, ...args], {
      env: { HARNESS_RUNC: runc, HARNESS_CAPBND: capBnd, HARNESS_CAP_LAST: '40' },
    });
  const read = async () => JSON.parse(await readFile(join(bundle, 'config.json'), 'utf8')) as typeof config;
  const args = async () => (await readFile(join(dir, 'args'), 'utf8')).trim();
  return { dir, bundle, run, read, args };
}

test(
  'where CAP_SYS_RESOURCE is missing, create drops it and raises a negative oomScoreAdj to 0',
  { skip },
  async (t) => {
    const w = await setUp(t);
    const argv = ['--root', '/run/runc', 'create', '--bundle', w.bundle, '--pid-file', 'x.pid', 'c1'];
    await w.run('000001fffeffffff', argv);
    const config = await w.read();
    for (const set of Object.values(config.process.capabilities))
      assert.deepEqual(set, ['CAP_CHOWN', 'CAP_SYS_ADMIN', 'CAP_NET_ADMIN']);
    assert.equal(config.process.oomScoreAdj, 0);
    assert.equal(await w.args(), argv.join(' '), 'runc gets the arguments untouched');
  },
);

test(
  'where nothing is missing, the wrapper only execs runc: the bundle is untouched',
  { skip },
  async (t) => {
    const w = await setUp(t);
    const before = await readFile(join(w.bundle, 'config.json'), 'utf8');
    await w.run('000001ffffffffff', ['create', '--bundle', w.bundle, 'c1']);
    assert.equal(await readFile(join(w.bundle, 'config.json'), 'utf8'), before);
    assert.equal(await w.args(), `create --bundle ${w.bundle} c1`);
  },
);

test('exec fixes the --process file (a process object, not a bundle config)', { skip }, async (t) => {
  const w = await setUp(t);
  const processFile = join(w.dir, 'process.json');
  await writeFile(processFile, JSON.stringify({ args: ['sh'], capabilities: { bounding: ALL } }));
  await w.run('000001fffeffffff', ['exec', '--process', processFile, '--detach', 'c1']);
  const fixed = JSON.parse(await readFile(processFile, 'utf8')) as { capabilities: { bounding: string[] } };
  assert.deepEqual(fixed.capabilities.bounding, ['CAP_CHOWN', 'CAP_SYS_ADMIN', 'CAP_NET_ADMIN']);
});

test(
  'a missing capability other than CAP_SYS_RESOURCE is dropped, and oomScoreAdj is left as it was',
  { skip },
  async (t) => {
    const w = await setUp(t);
    // bit 12 (CAP_NET_ADMIN) clear.
    await w.run('000001ffffffefff', ['run', '-b', w.bundle, 'c1']);
    const config = await w.read();
    assert.deepEqual(config.process.capabilities.bounding, [
      'CAP_CHOWN',
      'CAP_SYS_ADMIN',
      'CAP_SYS_RESOURCE',
    ]);
    assert.equal(config.process.oomScoreAdj, -998);
  },
);
