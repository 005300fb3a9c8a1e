// The test files and their tier. Unit tests sit next to their module and run in-process (no child
// process, no cluster, no assertion on elapsed time); integration tests, which start real processes,
// clusters or network namespaces, or assert on timing, sit in a `test/` folder of their area
// (CONTRIBUTING.md). The tier is read from that place, so a file cannot be in both or in neither.
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** The folders whose *.test.ts files are the project's tests (k6-scripts/ runs in k6, not Node). */
export const TEST_ROOTS = ['lib', 'harness', 'clusters', 'ztunnel', 'mesh', 'apps'] as const;

export type Tier = 'unit' | 'integration';

export interface TestFile {
  /** Relative to the project root, with '/'. */
  path: string;
  tier: Tier;
}

export function tierOf(path: string): Tier {
  return path.split(/[\\/]/).includes('test') ? 'integration' : 'unit';
}

async function walk(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e): Promise<string[]> => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : await walk(root, path);
      return e.name.endsWith('.test.ts') ? [relative(root, path).split(sep).join('/')] : [];
    }),
  );
  return nested.flat();
}

/** Every test file under the test roots, sorted, with its tier. */
export async function listTestFiles(root: string): Promise<TestFile[]> {
  const paths = (await Promise.all(TEST_ROOTS.map((r) => walk(root, join(root, r))))).flat().sort();
  return paths.map((path) => ({ path, tier: tierOf(path) }));
}
