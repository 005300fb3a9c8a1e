// docs/reference.md is generated from the code; these fail when the code moved on without it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { buildExperimentProgram } from '../cli/experiment-program.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { generateReference, REFERENCE_PATH } from './generate-reference.ts';
import { RUN_FOLDER_FILES } from './run-folder-files.ts';

test('docs/reference.md is what the code generates', async () => {
  const committed = await readFile(REFERENCE_PATH, 'utf8');
  const generated = await generateReference();
  assert.ok(
    committed === generated,
    'docs/reference.md is stale: the options, exit codes, run folder or summary columns changed; run `npm run docs` and commit docs/reference.md',
  );
});

test('the reference lists every option of npm run experiment', async () => {
  const reference = await generateReference();
  for (const option of buildExperimentProgram().options)
    assert.ok(reference.includes(`\`${option.flags.replaceAll('|', '\\|')}\``), `${option.flags} is missing`);
});

test('every run-folder file the reference lists is named by the source that writes it', async () => {
  for (const file of RUN_FOLDER_FILES) {
    const source = await readFile(join(PROJECT_ROOT, file.writtenBy), 'utf8');
    const name = basename(file.path);
    assert.ok(
      source.includes(`'${name}'`),
      `${file.writtenBy} does not name '${name}' any more; update harness/reference/run-folder-files.ts, then run \`npm run docs\``,
    );
  }
});
