// What the kind tests provision instead of the real engine, kind and images: each of our images
// "built" by the fake docker (`docker build --target <stage> --tag <image>`, killed on abort like a
// real build), the user's engine, kind from PATH, kind's default node image.
import type { KubernetesObject } from '@kubernetes/client-node';
import { KIND_IMAGES } from '../kind-images.ts';
import type { WatchedCluster } from '../provision/engine-watcher.ts';
import type { KindProvisioned } from '../provision/kind-provisioner.ts';
import type { StepRunner } from '../../steps/step-runner.ts';

/** What the run asked of the fake engine. */
export interface FakeEngineCalls {
  /** release() calls. */
  count: number;
  /** keep() calls: the engine left running after the run (a kept cluster). */
  kept?: number;
  /** What the engine's watcher was told to delete if the run dies, in order. */
  noted?: (WatchedCluster | undefined)[];
}

/**
 * Stand-ins for Istio's Gateway and VirtualService CRDs (the real ones come from istio.io/api in the
 * istio-crds step): the names, group, version and kinds the API server double serves them by.
 */
export function routingCrdFixtures(): KubernetesObject[] {
  return [
    ['gateways', 'Gateway'],
    ['virtualservices', 'VirtualService'],
  ].map(([plural = '', kind = '']) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.networking.istio.io` },
    spec: {
      group: 'networking.istio.io',
      names: { plural, kind, listKind: `${kind}List`, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          // As Istio's own: status.observedGeneration an int-or-string (its `x-kubernetes-*` keys
          // differ from client-node's attribute names: they must reach the API server as written).
          schema: {
            openAPIV3Schema: {
              type: 'object',
              'x-kubernetes-preserve-unknown-fields': true,
              properties: {
                status: {
                  type: 'object',
                  properties: {
                    observedGeneration: {
                      anyOf: [{ type: 'integer' }, { type: 'string' }],
                      'x-kubernetes-int-or-string': true,
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  }));
}

export function fakeProvision(
  env: Record<string, string>,
  released: FakeEngineCalls = { count: 0 },
  node: Pick<KindProvisioned, 'nodeImage' | 'nodeImageSource'> = { nodeImage: '', nodeImageSource: 'given' },
): (runner: StepRunner) => Promise<KindProvisioned> {
  return async (runner) => {
    await runner.step('images', async (step) => {
      for (const { image, target } of KIND_IMAGES)
        await step.run('docker', ['build', '--target', target, '--tag', image], { env });
    });
    return {
      engineOwner: 'user',
      release: () => {
        released.count += 1;
        return Promise.resolve();
      },
      keep: () => {
        released.kept = (released.kept ?? 0) + 1;
        return Promise.resolve();
      },
      noteCluster: (cluster) => {
        (released.noted ??= []).push(cluster);
        return Promise.resolve();
      },
      kindPath: 'kind',
      env: {},
      ...node,
      kubernetesVersion: 'v1.34.4',
      ownCni: false,
      istioCrds: routingCrdFixtures(),
    };
  };
}
