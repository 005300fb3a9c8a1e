import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeDirectory } from './make-directory.ts';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'make-directory-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Settles within `ms` or fails the test: the bug this replaces never settled. */
async function settlesWithin<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`did not settle within ${String(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('makes every missing level, and an existing folder is fine', async (t) => {
  const dir = await tempDir(t);
  const deep = join(dir, 'a', 'b', 'c');
  await makeDirectory(deep);
  assert.ok((await stat(deep)).isDirectory());
  await makeDirectory(deep);
  await makeDirectory(join(dir, 'a', 'b', 'c', '..', 'd'));
  assert.ok(existsSync(join(dir, 'a', 'b', 'd')));
});

test('under /proc it fails with ENOENT at once, where recursive mkdir spins forever', async () => {
  await assert.rejects(settlesWithin(2000, makeDirectory('/proc/nonexistent/results/run/pods')), {
    code: 'ENOENT',
    path: '/proc/nonexistent',
  });
});

test('a dangling symbolic link or a file in the path fails at once, creating nothing', async (t) => {
  const dir = await tempDir(t);
  await symlink(join(dir, 'gone'), join(dir, 'dangling'));
  await assert.rejects(settlesWithin(2000, makeDirectory(join(dir, 'dangling', 'results'))), {
    code: 'ENOENT',
  });
  await writeFile(join(dir, 'file'), '');
  await assert.rejects(settlesWithin(2000, makeDirectory(join(dir, 'file', 'results'))), { code: 'ENOTDIR' });
  await assert.rejects(settlesWithin(2000, makeDirectory(join(dir, 'file'))), { code: 'EEXIST' });
  assert.equal(existsSync(join(dir, 'gone')), false);
});

test('racing makers of the same folders both succeed', async (t) => {
  const dir = await tempDir(t);
  const deep = join(dir, 'x', 'y', 'z');
  await Promise.all([makeDirectory(deep), makeDirectory(deep), makeDirectory(join(deep, 'w'))]);
  assert.ok((await stat(join(deep, 'w'))).isDirectory());
});
