import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { KubernetesObject, V1PodSpec } from '@kubernetes/client-node';
import { PROJECT_ROOT } from '../../lib/index.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import { scenarioManifests } from './scenario-manifests.ts';
import { KIND_IMAGES } from '../../clusters/kind/kind-images.ts';
import { buildKindControlPlane } from '../../clusters/kind/kind-manifests.ts';
import { ISTIO_RUN_OWN_IMAGES } from '../../clusters/kind-istio/istio-steps.ts';

const podSpecOf = (o: KubernetesObject): V1PodSpec | undefined =>
  (o as { spec?: { template?: { spec?: V1PodSpec } } }).spec?.template?.spec;

// Found on the first real run: go-httpbin's published image was left to the nodes to pull, and no
// registry is reachable (ImagePullBackOff). Every image a kind run names must be one we load.
test('every image the kind E2 topology and its arms name is one of ours, built and loaded (none is pulled)', async () => {
  const loaded = new Set<string>(KIND_IMAGES.map((i) => i.image));
  for (const arm of [[], ['--mesh', 'off'], ['--prestop-sleep', '5']]) {
    const { params } = await parseExperimentArgs([
      '--backend',
      'kind',
      '--scenario',
      'workload-rollout',
      ...arm,
    ]);
    assert.ok(params);
    const objects = [...buildKindControlPlane(), ...scenarioManifests(params)];
    const images = objects
      .flatMap((o) => [...(podSpecOf(o)?.containers ?? []), ...(podSpecOf(o)?.initContainers ?? [])])
      .map((c) => c.image ?? '');
    assert.ok(images.length >= 4, `images named: ${images.join(', ')}`);
    for (const image of images)
      assert.ok(loaded.has(image), `${image} (${arm.join(' ') || 'ambient'}) would be pulled`);
  }
});

// Found on the first run of --app-shutdown echo with Istio's control plane: the fault server's image
// was built but not loaded (ImagePullBackOff). Every workload image such a run names must be loaded.
test("with Istio's control plane, the workload's image is one it loads, echo's fault server included", async () => {
  const loaded = new Set<string>(ISTIO_RUN_OWN_IMAGES);
  for (const arm of [[], ['--app-shutdown', 'echo']]) {
    const { params } = await parseExperimentArgs([
      ...['--backend', 'kind', '--control-plane', 'istio', '--scenario', 'istio-service-restart'],
      ...arm,
    ]);
    assert.ok(params);
    const httpbin = scenarioManifests(params).find(
      (o) => o.kind === 'Deployment' && o.metadata?.name === 'httpbin',
    );
    const images = (podSpecOf(httpbin ?? {})?.containers ?? []).map((c) => c.image ?? '');
    assert.equal(images.length, 1);
    for (const image of images)
      assert.ok(loaded.has(image), `${image} (${arm.join(' ') || 'default'}) would be pulled`);
  }
});

// Found on the first real run: the Dockerfile's FROM node:24-bookworm-slim and envoyproxy/envoy cannot
// be pulled here, and `--provenance=false` needs buildx, which this machine's docker client lacks.
test('every Dockerfile stage is FROM our own rootfs or another stage: the legacy builder pulls nothing', async () => {
  const dockerfile = await readFile(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gm)];
  const stages = new Set<string>();
  assert.ok(froms.length >= 5);
  for (const [, from = '', as] of froms) {
    assert.ok(from === '${SLIM}' || stages.has(from), `FROM ${from} is neither our rootfs nor a stage`);
    if (as) stages.add(as);
  }
  for (const { target } of KIND_IMAGES) assert.ok(stages.has(target), `no stage ${target}`);
  assert.doesNotMatch(dockerfile, /--provenance|--chmod|--mount/, 'BuildKit-only syntax');
});
