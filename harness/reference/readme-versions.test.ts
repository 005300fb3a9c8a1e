// Every version the README states is the one the code pins, package.json asks for and CI sets up.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KIND } from '../../clusters/kind/provision/kind-cli.ts';
import { KUBERNETES_VERSION } from '../../clusters/kind/provision/node-image/pins.ts';
import { ENVOY, FORTIO, GO_HTTPBIN } from '../../lib/install/index.ts';
import { PROJECT_ROOT } from '../paths.ts';

const read = (path: string): string => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const README = read('README.md');
const WORKFLOWS = readdirSync(join(PROJECT_ROOT, '.github', 'workflows')).map((f) =>
  read(join('.github', 'workflows', f)),
);

/** Every version the README gives a name, each as written (`fortio 1.66.0` -> 1.66.0). */
function stated(name: string): string[] {
  return [...README.matchAll(new RegExp(`${name} v?(\\d+\\.\\d+(?:\\.\\d+)?)`, 'g'))].map((m) => m[1] ?? '');
}

test("the tools' versions in the README are the pinned ones", () => {
  for (const [name, pinned] of [
    ['fortio', FORTIO.version],
    ['go-httpbin', GO_HTTPBIN.version],
    ['Envoy', ENVOY.version],
    ['kind', KIND.version],
    ['kubectl', KUBERNETES_VERSION.slice(1)],
  ] as const) {
    const said = stated(name);
    assert.ok(said.length > 0, `the README names ${name}'s version`);
    for (const v of said) assert.ok(pinned.startsWith(v), `README: ${name} ${v}, pinned ${pinned}`);
  }
});

test("Node: the README's minimum is package.json's engines, and CI sets up that major", () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const minimum = /^>=(\d+)\.(\d+)/.exec(engines);
  assert.ok(minimum, engines);
  assert.match(README, new RegExp(`>= ${minimum[1] ?? ''}\\.${minimum[2] ?? ''}\\b`));
  const majors = WORKFLOWS.flatMap((w) => [...w.matchAll(/node-version: '(\d+)'/g)].map((m) => m[1]));
  assert.ok(majors.length > 0);
  for (const major of majors) assert.equal(major, minimum[1]);
});

test("Go: the README's minimum is what every workflow sets up", () => {
  const [readmeGo] = [...README.matchAll(/Go >= (\d+\.\d+)/g)].map((m) => m[1]);
  assert.ok(readmeGo, 'the README states a Go minimum');
  const setUp = WORKFLOWS.flatMap((w) => [...w.matchAll(/go-version: '([\d.]+)'/g)].map((m) => m[1]));
  assert.ok(setUp.length > 0);
  for (const v of setUp) assert.equal(v, readmeGo, `a workflow sets up Go ${String(v)}`);
});

test('the README is a front door: at most 150 lines, the set-up commands first', () => {
  const lines = README.split('\n');
  assert.ok(lines.length <= 150, `${String(lines.length)} lines`);
  const setUp = lines.findIndex((l) => l.startsWith('npm ci && npm run tools && npm run experiment'));
  assert.ok(setUp >= 0 && setUp < 30, 'the install-and-run command near the top');
  assert.equal(lines[setUp + 1]?.startsWith('npm run check'), true, 'then the test command');
});
