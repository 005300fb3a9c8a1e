import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { ensureK6, pinnedK6Path } from './ensure-k6.ts';
import { K6_VERSION } from './k6-version.ts';
import { createFakeBin, fakeGoScript, fakeK6Script, installFake } from './test/fake-bin.ts';

async function newToolsDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tools-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const quiet = { write: () => undefined, isTty: false };

test('a k6 on PATH whose version fits is used as it is', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  const k6 = await installFake(bin, 'k6', fakeK6Script('2.4.1'));
  const found = await ensureK6({ toolsDir, env: bin.env, ...quiet });
  assert.deepEqual(found, { path: k6, version: '2.4.1', source: 'path' });
});

test('an old k6 on PATH is passed over and go builds the pinned one into the tools folder', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await installFake(bin, 'k6', fakeK6Script('1.8.1'));
  await installFake(bin, 'go', fakeGoScript({ goVersion: '1.26.8', builtVersion: K6_VERSION }));
  const lines: string[] = [];
  const found = await ensureK6({ toolsDir, env: bin.env, write: (l) => lines.push(l), isTty: false });

  assert.deepEqual(found, { path: pinnedK6Path(toolsDir), version: K6_VERSION, source: 'go' });
  const calls = await bin.readCalls();
  assert.ok(calls.includes(`go get go.k6.io/k6/v2@v${K6_VERSION}`), calls.join('\n'));
  assert.ok(
    calls.some((c) => /^go build -v -trimpath -o \S+ go\.k6\.io\/k6\/v2$/.test(c)),
    calls.join('\n'),
  );
  assert.match(
    lines.join(''),
    /k6: building from source: building k6 v2\.2\.0 with \S+ \(go version go1\.26\.8/,
  );
  assert.match(
    lines.join(''),
    new RegExp(`ready: ${pinnedK6Path(toolsDir)} \\(v${K6_VERSION}, built with go\\)`),
  );

  // Second call: found in the tools folder, nothing rebuilt.
  const before = (await bin.readCalls()).filter((c) => c.startsWith('go ')).length;
  const again = await ensureK6({ toolsDir, env: bin.env, ...quiet });
  assert.equal(again.source, 'tools');
  assert.equal((await bin.readCalls()).filter((c) => c.startsWith('go ')).length, before);
});

test('a Go older than k6 needs is not used', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await installFake(bin, 'go', fakeGoScript({ goVersion: '1.22.1', builtVersion: K6_VERSION }));
  const env = { ...bin.env, K6_DOWNLOAD_BASE_URL: 'http://127.0.0.1:9/nowhere' };
  const err = await ensureK6({ toolsDir, env, ...quiet }).catch((e: unknown) => e);
  assert.ok(isHarnessError(err, ErrorCode.ToolMissing));
  assert.match(err.message, /needs Go >= 1\.25/);
  assert.ok(!(await bin.readCalls()).some((c) => c.startsWith('go build')));
});

test('a failed go build and no network end in one message saying what to install (exit 2)', async (t) => {
  const bin = await createFakeBin(t);
  const toolsDir = await newToolsDir(t);
  await installFake(
    bin,
    'go',
    fakeGoScript({ goVersion: '1.26.8', builtVersion: K6_VERSION, failBuild: true }),
  );
  const env = { ...bin.env, K6_DOWNLOAD_BASE_URL: 'http://127.0.0.1:9/nowhere' };
  const err = await ensureK6({ toolsDir, env, ...quiet }).catch((e: unknown) => e);
  assert.ok(isHarnessError(err, ErrorCode.ToolMissing));
  assert.equal(err.exitCode, 2);
  assert.match(err.message, /no k6 on PATH/);
  assert.match(err.message, /go build failed: `go build .*compile: something broke/s);
  assert.match(err.message, /download failed: could not reach http:\/\/127\.0\.0\.1:9\/nowhere/);
  assert.match(err.message, /Install Go >= 1\.25 .* run `npm run tools`/);
  assert.equal(existsSync(pinnedK6Path(toolsDir)), false, 'nothing half-installed');
});

/** A release folder like k6's: the archive and its checksums file. */
async function makeRelease(
  t: { after: (fn: () => Promise<void>) => void },
  corrupt: boolean,
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'release-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const name = `k6-v${K6_VERSION}-linux-amd64`;
  await mkdir(join(root, 'stage', name), { recursive: true });
  await writeFile(join(root, 'stage', name, 'k6'), fakeK6Script(K6_VERSION), { mode: 0o755 });
  const archive = join(root, `${name}.tar.gz`);
  await execa('tar', ['-czf', archive, '-C', join(root, 'stage'), name]);
  const digest = createHash('sha256')
    .update(await readFile(archive))
    .digest('hex');
  const listed = corrupt ? digest.replace(/^./, (c) => (c === '0' ? '1' : '0')) : digest;
  await writeFile(join(root, `k6-v${K6_VERSION}-checksums.txt`), `${listed}  ${name}.tar.gz\n`);
  return root;
}

async function serveRelease(t: { after: (fn: () => Promise<void>) => void }, root: string): Promise<string> {
  const server = createServer((req, res) => {
    const file = (req.url ?? '').replace(`/releases/v${K6_VERSION}/`, '');
    readFile(join(root, file)).then(
      (body) => res.end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) =>
        server.close(() => {
          r();
        }),
      ),
  );
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/releases`;
}

test(
  'without Go, the release is downloaded, checked against its SHA-256 and unpacked',
  { skip: process.platform !== 'linux' || process.arch !== 'x64' },
  async (t) => {
    const bin = await createFakeBin(t);
    const toolsDir = await newToolsDir(t);
    const baseUrl = await serveRelease(t, await makeRelease(t, false));
    const found = await ensureK6({ toolsDir, env: { ...bin.env, K6_DOWNLOAD_BASE_URL: baseUrl }, ...quiet });
    assert.deepEqual(found, { path: pinnedK6Path(toolsDir), version: K6_VERSION, source: 'download' });
  },
);

test(
  'a download whose checksum does not match is refused',
  { skip: process.platform !== 'linux' || process.arch !== 'x64' },
  async (t) => {
    const bin = await createFakeBin(t);
    const toolsDir = await newToolsDir(t);
    const baseUrl = await serveRelease(t, await makeRelease(t, true));
    const err = await ensureK6({
      toolsDir,
      env: { ...bin.env, K6_DOWNLOAD_BASE_URL: baseUrl },
      ...quiet,
    }).catch((e: unknown) => e);
    assert.ok(isHarnessError(err, ErrorCode.ToolMissing));
    assert.match(err.message, /has SHA-256 [0-9a-f]{64}, but the release lists/);
    assert.equal(existsSync(pinnedK6Path(toolsDir)), false);
  },
);
