// What the kind tests provision instead of the real engine, kind and images: each of our images
// "built" by the fake docker (`docker build --target <stage> --tag <image>`, killed on abort like a
// real build), the user's engine, kind from PATH, kind's default node image.
import { KIND_IMAGES } from '../kind-images.ts';
import type { KindProvisioned } from '../provision/kind-provisioner.ts';
import type { StepRunner } from '../provision/provision-step.ts';

export function fakeProvision(
  env: Record<string, string>,
  released: { count: number } = { count: 0 },
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
      kindPath: 'kind',
      env: {},
      nodeImage: '',
      nodeImageSource: 'given',
      kubernetesVersion: 'v1.34.4',
      ownCni: false,
    };
  };
}
