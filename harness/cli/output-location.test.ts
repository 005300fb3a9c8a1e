import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import {
  checkOutputFile,
  checkOutputFolder,
  outputFileProblem,
  outputFolderProblem,
} from './output-location.ts';

async function scratch(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'output-location-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'file'), '');
  await mkdir(join(dir, 'folder'));
  await symlink(join(dir, 'gone'), join(dir, 'dangling'));
  await symlink('/proc', join(dir, 'to-proc'));
  await symlink(join(dir, 'folder'), join(dir, 'to-folder'));
  return dir;
}

test('output folders: what can hold a run and what cannot, creating nothing', async (t) => {
  const dir = await scratch(t);
  const before = await readdir(dir);
  const fine = [
    dir,
    join(dir, 'folder'),
    join(dir, 'new'),
    join(dir, 'new', 'deeper'),
    join(dir, 'to-folder', 'x'),
  ];
  for (const path of fine) assert.equal(outputFolderProblem(path), undefined, path);
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    ['/proc/nonexistent/results', /under \/proc, a kernel file system/],
    ['/proc', /under \/proc/],
    ['/sys/kernel/results', /under \/sys/],
    ['/dev/null', /under \/dev/],
    [join(dir, 'to-proc', 'nonexistent'), /leads to \/proc; \/proc is under \/proc/],
    [join(dir, 'file'), /is a file, not a folder/],
    [join(dir, 'file', 'results'), /cannot be reached \(ENOTDIR\)/],
    [join(dir, 'dangling'), /symbolic link to nothing/],
    [join(dir, 'dangling', 'results'), /symbolic link to nothing/],
    [join(dir, 'x'.repeat(300)), /ENAMETOOLONG/],
    [`${dir}/a\0b`, /NUL/],
    ['-1', /starts with "-" as a flag does .*write \.\/-1/],
    ['--keep-cluster', /starts with "-"/],
  ];
  for (const [path, why] of refused) assert.match(outputFolderProblem(path) ?? 'accepted', why, path);
  assert.deepEqual(await readdir(dir), before, 'nothing created');
  assert.equal(existsSync(join(dir, 'new')), false);
});

test('output files: a new or regular file in an existing folder', async (t) => {
  const dir = await scratch(t);
  for (const path of [join(dir, 'file'), join(dir, 'new.json'), join(dir, 'to-folder', 'k6.json')])
    assert.equal(outputFileProblem(path), undefined, path);
  const refused: [string, RegExp][] = [
    ['', /empty/],
    [join(dir, 'folder'), /is a folder, not a file/],
    [join(dir, 'missing', 'k6.json'), /its folder .*missing does not exist/],
    [join(dir, 'dangling'), /symbolic link to nothing/],
    [join(dir, 'file', 'k6.json'), /ENOTDIR/],
    ['/dev/null', /under \/dev/],
    ['/proc/nonexistent/k6.json', /under \/proc/],
    [join(dir, 'to-proc', 'k6.json'), /leads to \/proc/],
  ];
  for (const [path, why] of refused) assert.match(outputFileProblem(path) ?? 'accepted', why, path);
  assert.equal(existsSync(join(dir, 'new.json')), false);
});

test('the errors name the flag, the value and what to do (exit 2)', () => {
  for (const check of [
    () => {
      checkOutputFolder('--results-dir', '/proc/nonexistent/results', './results');
    },
    () => {
      checkOutputFile('--k6-out', '/proc/x/k6.json', 'json=k6.json', 'json=/proc/x/k6.json');
    },
  ]) {
    try {
      check();
      assert.fail('accepted');
    } catch (err) {
      assert.ok(isHarnessError(err, ErrorCode.BadInput));
      assert.equal(err.exitCode, 2);
      assert.match(
        err.message,
        /^Expected (--results-dir|--k6-out) to be .* got "(\/proc\/nonexistent\/results|json=\/proc\/x\/k6\.json)"; .*; choose another, e\.g\. /,
      );
    }
  }
});
