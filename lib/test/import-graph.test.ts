// The project's modules import each other without circles and without climbing (issue 32): a circle,
// even of types only, means two files are one concept split in the wrong place; an import from a
// higher floor means a piece sits on the wrong floor. Every non-test .ts file's relative imports and
// re-exports, type-only ones included, form the graph both tests read. (Tests may reach up for a
// fixture: an integration test of mesh/ runs against the kind API double.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Not code: dependencies, tools, tests, and the runs' results (data; the code that writes them is harness/record/). */
const SKIP = new Set(['node_modules', '.git', '.tools', 'test', 'results']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [];
  });
}

/** Strongly connected components of more than one module (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) component.push(w);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Each module's relative imports and re-exports that name a module of the project. */
function importGraph(): Map<string, string[]> {
  const files = sources(ROOT);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)]
        .map((m) => normalize(join(dirname(file), m[1] ?? '')))
        .filter((target) => known.has(target));
      return [file, targets] as const;
    }),
  );
}

/**
 * The house's floors, by top folder: a module imports from its own floor or lower. `k6-scripts/` runs
 * in k6, not Node: it stands apart, importing from no other folder and imported by none.
 */
const FLOORS: Readonly<Record<string, number>> = {
  lib: 1,
  mesh: 2,
  ztunnel: 3,
  apps: 3,
  clusters: 4,
  harness: 5,
};

const topFolder = (file: string): string => relative(ROOT, file).split(sep)[0] ?? '';

/** The imports that run from a lower floor up to a higher one, or into or out of k6-scripts/. */
function climbingImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const [from, to] = [topFolder(file), topFolder(target)];
        if (from === to) return false;
        return (FLOORS[to] ?? Infinity) > (FLOORS[from] ?? -Infinity);
      })
      .map((target) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`),
  );
}

test('no two modules import each other, directly or round a circle (type imports included)', () => {
  const graph = importGraph();
  assert.ok(graph.size > 200, `read ${String(graph.size)} modules`);
  assert.deepEqual(
    cycles(graph).map((c) => c.map((f) => relative(ROOT, f))),
    [],
  );
});

test('no module imports from a higher floor: lib <- mesh <- ztunnel, apps <- clusters <- harness', () => {
  const graph = importGraph();
  assert.ok(graph.size > 200, `read ${String(graph.size)} modules`);
  const unplaced = [...graph.keys()].filter(
    (f) => !(topFolder(f) in FLOORS) && topFolder(f) !== 'k6-scripts',
  );
  assert.deepEqual(
    unplaced.map((f) => relative(ROOT, f)),
    [],
    'a new top folder needs its floor in FLOORS',
  );
  assert.deepEqual(climbingImports(graph), []);
});

/** A folder's name one level inside a top folder (`harness/run/steps/x.ts` -> `harness/run`). */
const subFolder = (file: string): string => relative(ROOT, file).split(sep).slice(0, 2).join('/');

/**
 * The folders inside each top folder, as a graph of their imports: no circle, of two folders or
 * more (issue 43 untangled the last: harness/'s results, run and options; ztunnel's inbound and
 * outbound). A folder that reads another's types and is read by it back is one concept split wrong.
 */
test('no folders inside a top folder import each other, directly or round a circle', () => {
  const graph = importGraph();
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    if (subFolder(file).endsWith('.ts')) continue;
    const out = folders.get(subFolder(file)) ?? new Set<string>();
    folders.set(subFolder(file), out);
    for (const t of targets)
      if (
        topFolder(t) === topFolder(file) &&
        subFolder(t) !== subFolder(file) &&
        !subFolder(t).endsWith('.ts')
      )
        out.add(subFolder(t));
  }
  assert.ok(folders.size > 20, `read ${String(folders.size)} folders`);
  assert.deepEqual(cycles(new Map([...folders].map(([f, to]) => [f, [...to]]))), []);
});
