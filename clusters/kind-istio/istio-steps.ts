// The kind bring-up with Istio's own control plane (--control-plane istio): kind's provisioning,
// machine check and cluster as always, then Istio's programs built from the Go module proxy and
// their images (istio-build), the images the run needs loaded (not our istiod, istio-cni or
// gateway), and Istio's charts installed (istio). The run's namespace and route come after, from
// the existing-cluster steps (clusters/cluster).
import { join } from 'node:path';
import { ensureGoTool, ENVOY, pinnedEnvoyPath } from '../../lib/install/index.ts';
import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError } from '../../lib/index.ts';
import { IMAGES } from '../manifests/index.ts';
import type { KindRun } from '../kind/kind-run.ts';
import type { StepRunner } from '../steps/step-runner.ts';
import { checkMachineStep } from '../kind/up/check-machine.ts';
import { createClusterStep } from '../kind/up/create-cluster.ts';
import type { KindUp, KindUpStep } from '../kind/up/kind-up.ts';
import { provisionStep } from '../kind/up/provision.ts';
import { installIstio } from './istio-charts.ts';
import type { IstioZtunnel } from './istio-charts.ts';
import { ensureIstioImages, istioImageList, istioModuleDir } from './istio-images.ts';
import type { IstioImages } from './istio-images.ts';
import { HELM, ISTIO_TOOLS } from './istio-release.ts';

/** What istio-build made, for the later steps. */
export interface IstioBuilt {
  images: IstioImages;
  helm: string;
  chartsDir: string;
}

const built = new WeakMap<KindRun, IstioBuilt>();

function builtOf(run: KindRun): IstioBuilt {
  const b = built.get(run);
  if (!b)
    throw new HarnessError(ErrorCode.ProvisionFailed, "Istio's programs were not built before this step");
  return b;
}

async function buildIstio(up: KindUp, runner: StepRunner): Promise<void> {
  const { run } = up;
  const toolsDir = DEFAULT_TOOLS_DIR;
  await runner.step('istio-build', async (step) => {
    const write = (t: string): void => {
      step.note(t.trimEnd(), true);
    };
    const opts = { toolsDir, write, ...(step.signal ? { signal: step.signal } : {}) };
    const paths = {
      pilotDiscovery: (await ensureGoTool(ISTIO_TOOLS.pilotDiscovery, opts)).path,
      pilotAgent: (await ensureGoTool(ISTIO_TOOLS.pilotAgent, opts)).path,
      installCni: (await ensureGoTool(ISTIO_TOOLS.installCni, opts)).path,
      istioCni: (await ensureGoTool(ISTIO_TOOLS.istioCni, opts)).path,
    };
    const helm = (await ensureGoTool(HELM, opts)).path;
    const slimRef = run.provisioned?.slimRef;
    if (!slimRef)
      throw new HarnessError(ErrorCode.ProvisionFailed, 'no slim root file system was provisioned');
    const images = await ensureIstioImages(
      step,
      { env: run.provisioned?.env ?? {} },
      {
        slimRef,
        toolsDir,
        binaries: { ...paths, envoy: pinnedEnvoyPath(toolsDir) },
      },
    );
    const chartsDir = join(await istioModuleDir(step), 'manifests', 'charts');
    built.set(run, { images, helm, chartsDir });
    step.note(
      `Istio ${ISTIO_TOOLS.pilotDiscovery.version} (Envoy ${ENVOY.version} in proxyv2): ${istioImageList(images).join(', ')}`,
      true,
    );
  });
}

/** The ztunnel the chart runs: istio/ztunnel's binary's image when one was built, else ours. */
function ztunnelOf(run: KindRun): IstioZtunnel {
  const binary = run.provisioned?.istioZtunnelImage;
  return binary ? { impl: 'istio', image: binary } : { impl: 'ours', image: IMAGES.ztunnel };
}

/**
 * Ours that a run with Istio's control plane loads beside Istio's and ztunnel's: the workload's
 * (go-httpbin, and the fault server in its place with --app-shutdown echo) and the load's.
 */
export const ISTIO_RUN_OWN_IMAGES = [IMAGES.httpbin, IMAGES.faultServer, IMAGES.fortio, IMAGES.client];

/** What a run with Istio's control plane loads: ours above, Istio's and ztunnel's images. */
function loadIstioImages(up: KindUp): Promise<void> {
  const { run } = up;
  return run.tools.loadImages({
    name: run.settings.name,
    images: [...ISTIO_RUN_OWN_IMAGES, ...istioImageList(builtOf(run).images), ztunnelOf(run).image],
    platform: up.platform,
  });
}

async function installIstioStep(up: KindUp): Promise<void> {
  const { run } = up;
  const p = run.provisioned;
  if (p?.nodeImage) run.facts['node_image'] = `${p.nodeImage} (${p.nodeImageSource})`;
  const b = builtOf(run);
  await up.runner.step('istio', (step) =>
    installIstio(step, {
      helm: b.helm,
      chartsDir: b.chartsDir,
      kubeconfig: run.settings.kubeconfigPath,
      images: b.images,
      ztunnel: ztunnelOf(run),
      debounceAfterMs: run.settings.debounceAfterMs,
      valuesDir: run.settings.stepLogDir,
    }),
  );
}

export const KIND_ISTIO_UP_STEPS: readonly KindUpStep[] = [
  { name: 'provision', hasOwnSteps: true, run: provisionStep },
  { name: 'istio-build', hasOwnSteps: true, run: (up) => buildIstio(up, up.runner) },
  { name: 'machine', run: checkMachineStep },
  { name: 'cluster', run: createClusterStep },
  { name: 'load-images', run: loadIstioImages },
  { name: 'istio', hasOwnSteps: true, run: installIstioStep },
];
