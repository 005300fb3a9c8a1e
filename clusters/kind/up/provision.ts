import { IMAGES } from '../../manifests/index.ts';
import { KIND_IMAGES } from '../kind-images.ts';
import { makeKindTools } from '../kind-run.ts';
import { provisionKind } from '../provision/kind-provisioner.ts';
import type { KindProvisioned, NodeImageChoice } from '../provision/kind-provisioner.ts';
import type { StepRunner } from '../../steps/step-runner.ts';
import type { KindUp } from './kind-up.ts';

/**
 * ZTUNNEL_HARNESS_KIND_PROVISION=none: provision nothing: the engine, kind (from PATH), kind's default
 * node image, our images (each `docker build --target <stage> --tag <image>` as the docker on PATH
 * takes it) and the ingress port are the caller's; no Istio CRDs are installed. The commands' tests run the harness as a process
 * against fake kind and docker this way, with an HTTP server on the ingress port standing in for
 * docker-proxy.
 */
export const PROVISION_NONE = process.env['ZTUNNEL_HARNESS_KIND_PROVISION'] === 'none';

const provisionNone = async (runner: StepRunner): Promise<KindProvisioned> => {
  await runner.step('images', async (step) => {
    for (const { image, target } of KIND_IMAGES)
      await step.run('docker', ['build', '--target', target, '--tag', image]);
  });
  return {
    engineOwner: 'user',
    release: () => Promise.resolve(),
    kindPath: 'kind',
    env: {},
    nodeImage: '',
    nodeImageSource: 'given',
    kubernetesVersion: '',
    ownCni: false,
    // The caller's too: no CRDs applied, so istiod serves the gateway's metadata route only.
    istioCrds: [],
  };
};

/** The provisioning a real run does: provisionKind with our images (kind-images.ts). */
const defaultProvision =
  (nodeImage: NodeImageChoice, istioZtunnelBinary: string | undefined) =>
  (runner: StepRunner): Promise<KindProvisioned> =>
    provisionKind(runner, {
      nodeImage,
      images: KIND_IMAGES,
      ...(istioZtunnelBinary ? { istioZtunnelBinary } : {}),
    });

/**
 * The provision step: engine -> kind -> node image -> images, each a step of its own (timed by the
 * same runner); then the tools are the pinned kind with the engine's environment.
 */
export async function provisionStep(up: KindUp): Promise<void> {
  const { run } = up;
  const { settings } = run;
  const provision =
    settings.provision ??
    (PROVISION_NONE ? provisionNone : defaultProvision(settings.nodeImage, settings.istioZtunnelBinary));
  const provisioned = await provision(up.runner);
  run.provisioned = provisioned;
  // The ztunnel DaemonSet's image: ours, or istio/ztunnel's binary's (its content hash in the tag).
  run.facts['ztunnel_image'] = provisioned.istioZtunnelImage ?? IMAGES.ztunnel;
  run.tools = makeKindTools({
    settings,
    signal: run.cancelTools.signal,
    kindPath: provisioned.kindPath,
    env: provisioned.env,
  });
}
