import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { findOnPath } from '../../../lib/install/index.ts';
import { validateAgainstModels } from '../model-check.ts';
import { extractCrds, fetchIstioCrds, ISTIO_API, ISTIO_CRD_FILE, ROUTING_CRDS } from './istio-crds.ts';
import { createStepRunner } from '../../steps/step-runner.ts';

type After = { after: (fn: () => Promise<void>) => void };

const crd = (name: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: {
    versions: [{ name: 'v1', schema: { openAPIV3Schema: { 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

const GEN_YAML = [
  '# a comment document',
  stringify(crd('destinationrules.networking.istio.io')),
  stringify(crd('virtualservices.networking.istio.io')),
  stringify(crd('gateways.networking.istio.io')),
].join('---\n');

/** A step runner logging into a temp dir removed after the test. */
async function runnerFor(t: After) {
  const dir = await mkdtemp(join(tmpdir(), 'istio-crds-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return createStepRunner({ logDir: dir, write: () => undefined });
}

/** A temp dir with a fake `go` that prints `answer` for `go mod download -json`, and a step runner. */
async function fakeGo(t: After, answer: (dir: string) => object) {
  const dir = await mkdtemp(join(tmpdir(), 'istio-crds-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const moduleDir = join(dir, 'mod');
  await mkdir(join(moduleDir, 'kubernetes'), { recursive: true });
  await writeFile(join(moduleDir, ISTIO_CRD_FILE), GEN_YAML);
  await writeFile(join(dir, 'answer.json'), JSON.stringify(answer(moduleDir)));
  await writeFile(join(dir, 'go'), `#!/bin/sh\necho "$@" > "${dir}/args"\ncat "${dir}/answer.json"\n`);
  await chmod(join(dir, 'go'), 0o755);
  const runner = createStepRunner({ logDir: join(dir, 'logs'), write: () => undefined });
  const fetch = () => runner.step('istio-crds', (step) => fetchIstioCrds(step, { env: { PATH: dir } }));
  return { dir, fetch };
}

describe("Istio's routing CRDs from istio.io/api", () => {
  it('extracts the named CRDs in the order asked, as plain objects; a missing one is named', () => {
    const crds = extractCrds(GEN_YAML, ROUTING_CRDS);
    assert.deepEqual(
      crds.map((c) => c.metadata?.name),
      ['gateways.networking.istio.io', 'virtualservices.networking.istio.io'],
    );
    assert.deepEqual(crds[0], crd('gateways.networking.istio.io'), 'x-kubernetes-* keys as written');
    assert.throws(
      () => extractCrds(GEN_YAML, ['sidecars.networking.istio.io']),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ProvisionFailed) &&
        /no sidecars\.networking\.istio\.io/.test(err.message),
    );
  });

  it('reads them from the folder `go mod download -json` names when its hash is the pin', async (t) => {
    const { dir, fetch } = await fakeGo(t, (moduleDir) => ({
      Path: 'istio.io/api',
      Dir: moduleDir,
      Sum: ISTIO_API.sum,
    }));
    assert.deepEqual(
      (await fetch()).map((c) => c.metadata?.name),
      [...ROUTING_CRDS],
    );
    assert.equal(
      (await readFile(join(dir, 'args'), 'utf8')).trim(),
      `mod download -json istio.io/api@${ISTIO_API.version}`,
    );
  });

  it('refuses a module whose hash is not the pin, and says what go said when it failed', async (t) => {
    const other = await fakeGo(t, (moduleDir) => ({ Dir: moduleDir, Sum: 'h1:somethingElse=' }));
    await assert.rejects(
      other.fetch(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ProvisionFailed) &&
        err.message.includes(`has hash h1:somethingElse=, pinned ${ISTIO_API.sum}`),
    );
    const failed = await fakeGo(t, () => ({
      Path: 'istio.io/api',
      Error: 'module lookup disabled by GOPROXY=off',
    }));
    await assert.rejects(
      failed.fetch(),
      /go mod download istio\.io\/api@v1\.32\.0: module lookup disabled by GOPROXY=off/,
    );
  });

  it('without go on PATH: ToolMissing, naming the module', async (t) => {
    const runner = await runnerFor(t);
    await assert.rejects(
      runner.step('istio-crds', (step) => fetchIstioCrds(step, { env: { PATH: '' } })),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ToolMissing) && err.message.includes('istio.io/api@v1.32.0'),
    );
  });

  it("the pinned module's real file: both CRDs, served at v1, and client-node's models know every field", async (t) => {
    const env = { PATH: `${process.env['PATH'] ?? ''}:/usr/local/go/bin` };
    if (!(await findOnPath('go', env))) {
      t.skip('needs go');
      return;
    }
    const runner = await runnerFor(t);
    try {
      // The module cache only: a test downloads nothing.
      const crds = await runner.step('istio-crds', (step) =>
        fetchIstioCrds(step, { env, goEnv: { GOPROXY: 'off' } }),
      );
      validateAgainstModels(crds);
      for (const c of crds) {
        const versions =
          (c as { spec?: { versions?: { name: string; served: boolean }[] } }).spec?.versions ?? [];
        assert.ok(
          versions.some((v) => v.name === 'v1' && v.served),
          c.metadata?.name,
        );
      }
    } catch (err) {
      if (!/GOPROXY=off/.test(String(err))) throw err;
      t.skip(`istio.io/api@${ISTIO_API.version} is not in the Go module cache`);
    }
  });
});
