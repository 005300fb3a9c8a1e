// Commits read as a history (issue 60): each commit added since the one recorded in
// .ci/commit-subjects-since has a subject of at most 72 characters, then a blank line and the body
// (git joins a first paragraph's lines into the subject, so a missing blank line reads as a long
// subject here). Older commits are as they landed. Reads the repository's history with git, so it
// sits in the integration tier.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../index.ts';

const MAX_SUBJECT = 72;

test(`every commit since the recorded one has a subject of at most ${String(MAX_SUBJECT)} characters`, async (t) => {
  const since = readFileSync(join(PROJECT_ROOT, '.ci', 'commit-subjects-since'), 'utf8').trim();
  const known = await execa('git', ['cat-file', '-e', `${since}^{commit}`], {
    cwd: PROJECT_ROOT,
    reject: false,
  });
  if (known.exitCode !== 0) {
    t.skip(`the recorded commit ${since} is not in this clone's history (a shallow clone): nothing to read`);
    return;
  }
  const log = await execa('git', ['log', '--format=%h%x09%s', `${since}..HEAD`], { cwd: PROJECT_ROOT });
  const long = log.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [hash = '', subject = ''] = l.split('\t');
      return { hash, subject };
    })
    .filter((c) => c.subject.length > MAX_SUBJECT)
    .map((c) => `${c.hash} (${String(c.subject.length)}): ${c.subject}`);
  assert.deepEqual(long, [], 'reword these: a subject of at most 72 characters, a blank line, then the body');
});
