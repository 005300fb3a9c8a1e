import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { appendJobSummary, errorAnnotation } from './ci-output.ts';

it('the job summary is appended to only under Actions; annotations escape as workflow commands do', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ci-output-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'summary.md');
  assert.equal(await appendJobSummary('# a', {}), false);
  assert.equal(await appendJobSummary('# a\n', { GITHUB_STEP_SUMMARY: path }), true);
  assert.equal(await appendJobSummary('# b', { GITHUB_STEP_SUMMARY: path }), true);
  assert.equal(await readFile(path, 'utf8'), '# a\n\n# b\n\n');
  assert.equal(errorAnnotation('t', 'm', {}), '');
  assert.equal(
    errorAnnotation('regression: a,b', '50% worse\nsee', { GITHUB_ACTIONS: 'true' }),
    '::error title=regression%3A a%2Cb::50%25 worse%0Asee\n',
  );
});
