import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../lib/index.ts';
import { BACKEND_COLUMN_SPECS, BACKEND_COLUMNS } from './backend-columns.ts';
import { KIND_ISTIO_PROVIDER } from './kind-istio/provider.ts';
import {
  allBackendOptions,
  BACKEND_NAMES,
  BACKEND_OWN_COLUMNS,
  BACKENDS,
  DEFAULT_BACKEND,
  isBackendName,
  providerOf,
} from './registry.ts';

test("the registry's names are --backend's choices, the default first", () => {
  // A type-level check too: BACKEND_NAMES is a tuple of the providers' literal names.
  const names: readonly ['local', 'kind', 'cluster'] = BACKEND_NAMES;
  assert.deepEqual(names, ['local', 'kind', 'cluster']);
  assert.equal(DEFAULT_BACKEND, 'local');
  assert.equal(providerOf('kind'), KIND_ISTIO_PROVIDER);
  assert.ok(isBackendName('kind'));
  assert.ok(!isBackendName('k3d'));
});

test("runs.csv's backend columns keep their order as backends declare their own (a header only grows)", () => {
  const timing = [
    'watchFanoutMs',
    'kubeletReactionMs',
    'sandboxSetupMs',
    'exitDetectionMs',
    'pushLatencyMs',
    'debounceQuietMs',
    'debounceMaxMs',
  ].map((k) => `timing_${k}`);
  assert.deepEqual(BACKEND_COLUMNS, [
    'backend',
    'nodes',
    'timing_model',
    'ztunnel_mode',
    'ingress_path',
    'address_block',
    'kind_cluster',
    'kind_version',
    'docker_server_version',
    'kubernetes_version',
    'node_image',
    ...timing,
    'istio_shared_ca',
    'cluster_context',
    'istio_version',
    'ztunnel_image',
    'control_plane',
    'debounce_after_ms',
  ]);
  // Every backend's own columns, each once.
  const own = BACKEND_OWN_COLUMNS.map((c) => c.name);
  assert.deepEqual(new Set(own).size, own.length);
  for (const b of BACKENDS) for (const c of b.columns) assert.ok(own.includes(c.name), c.name);
  assert.deepEqual(
    BACKEND_COLUMN_SPECS.filter((c) => c.role === 'parameter').map((c) => c.name),
    [
      'backend',
      'nodes',
      'ztunnel_mode',
      'ingress_path',
      ...timing,
      'istio_version',
      'control_plane',
      'debounce_after_ms',
    ],
  );
});

test("every backend's options, each key once; kind's port and local's CA mode are checked as parsed", () => {
  const options = allBackendOptions();
  assert.deepEqual(
    options.map((o) => o.key),
    [
      'istio-shared-ca',
      'local-address-block',
      'kind-ingress-port',
      'node-image',
      'keep-cluster',
      'control-plane',
      'kubeconfig',
      'context',
      'istio-namespace',
      'gateway',
      'allow-ztunnel-restart',
      'all-istio-logs',
      'image-registry',
    ],
  );
  const ca = options.find((o) => o.key === 'istio-shared-ca');
  assert.equal(ca?.default, 'istiod');
  assert.equal(ca.parse?.('fake'), 'fake');
  assert.throws(
    () => ca.parse?.('citadel'),
    (err) =>
      isHarnessError(err, ErrorCode.BadInput) &&
      err.message === 'Expected --istio-shared-ca to be istiod | fake, got "citadel"',
  );
  const port = options.find((o) => o.key === 'kind-ingress-port');
  const parse = port?.parse;
  assert.ok(parse);
  assert.equal(parse('18081'), 18081);
  assert.equal(port.default, 18080);
  for (const raw of ['70000', '0', '1e3', '80.5', ''])
    assert.throws(
      () => parse(raw),
      (err) =>
        isHarnessError(err, ErrorCode.BadInput) &&
        err.message === `Expected --kind-ingress-port to be an integer from 1 to 65535, got "${raw}"`,
    );
});

test("outside the backends' own folders no code compares a backend's name (a capability says what differs)", () => {
  const root = join(import.meta.dirname, '..');
  // A backend's own folder is one with a provider.ts (clusters/local, kind, kind-istio, existing).
  const providerFolders = readdirSync(join(root, 'clusters'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, 'clusters', d.name, 'provider.ts')))
    .map((d) => `clusters/${d.name}`);
  assert.ok(providerFolders.length >= BACKENDS.length, providerFolders.join());
  const names = BACKEND_NAMES.join('|');
  const compare = new RegExp(
    `backend\\S*\\]?\\s*[!=]==\\s*'(${names})'|'(${names})'\\s*[!=]==\\s*\\S*backend`,
    'i',
  );
  const offending: string[] = [];
  for (const top of ['lib', 'mesh', 'ztunnel', 'apps', 'clusters', 'harness'])
    for (const file of readdirSync(join(root, top), { recursive: true, encoding: 'utf8' })) {
      const path = join(top, file);
      if (!path.endsWith('.ts') || path.endsWith('.test.ts') || path.split('/').includes('test')) continue;
      if (path === 'clusters/registry.ts' || providerFolders.some((f) => path.startsWith(`${f}/`))) continue;
      readFileSync(join(root, path), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (compare.test(line)) offending.push(`${path}:${String(i + 1)}: ${line.trim()}`);
        });
    }
  assert.deepEqual(offending, []);
  assert.ok(compare.test("if (row['backend'] === 'cluster') x();"), 'the pattern finds what it looks for');
});
