import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bundleK6Script } from './bundle-k6-script.ts';
import { K6_SCRIPT } from './run-load.ts';

// k6 runs only where the user has it, but its script ships with every clone: it is type-checked by
// `npm run typecheck` (k6-scripts/tsconfig.json) and bundled here, so a broken script fails CI.
test("the k6 script bundles into one ES module that imports only k6's own modules", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'k6-bundle-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = await bundleK6Script({ script: K6_SCRIPT, outFile: join(dir, 'load.js') });
  const code = await readFile(out, 'utf8');
  const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(imports)].sort(), ['k6/execution', 'k6/http']);
  assert.match(code, /constant-arrival-rate/);
  assert.match(code, /export \{[^}]*\boptions\b[^}]*\}/);
});
