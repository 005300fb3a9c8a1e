import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError } from '../../../lib/index.ts';
import { ensureGoTool } from '../../../lib/install/index.ts';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ensureAppImages } from './app-images.ts';
import type { AppImage } from './app-images.ts';
import { ensureDockerEngine } from './docker-engine.ts';
import type { DockerEngine, EngineOptions } from './docker-engine.ts';
import type { WatchedCluster } from './engine-watcher.ts';
import { hasImage } from './docker-images.ts';
import { fetchIstioCrds } from './istio-crds.ts';
import { ensureIstioZtunnelImage } from './istio-ztunnel-image.ts';
import { KIND } from './kind-cli.ts';
import { ensureRootfsImage } from './node-image/debian-rootfs.ts';
import { ensureNodeImage, NODE_IMAGE_REPOSITORY } from './node-image/node-image.ts';
import { KUBERNETES_VERSION } from './node-image/pins.ts';
import { SLIM_ROOTFS } from './node-image/rootfs-specs.ts';
import type { StepRunner } from '../../steps/step-runner.ts';

/** kind v0.33.0's default node image (pkg/apis/config/defaults/image.go), pinned by digest. */
export const OFFICIAL_NODE_IMAGE =
  'kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5';
/** A Docker network of ours for the nodes (kind's KIND_EXPERIMENTAL_DOCKER_NETWORK): removed after. */
export const KIND_NETWORK = 'ztunnel-harness-kind';

/** `--node-image auto` (ours unless the official image can be had and runs here) or an image reference. */
export type NodeImageChoice = 'auto' | (string & {});

export interface KindProvisioned {
  /** Who runs the engine: the user, or us (started by this run, which stops it in release()). */
  engineOwner: DockerEngine['owner'];
  /** Stops our engine if this run started it; nothing otherwise. */
  release(): Promise<void>;
  /** Leaves an engine this run started running after it (a kept cluster); nothing otherwise. */
  keep?: () => Promise<void>;
  /**
   * On an engine this run started: the cluster to delete, before stopping the engine, if the run's
   * process dies without doing it (SIGKILL); undefined once it is deleted.
   */
  noteCluster?: (cluster: WatchedCluster | undefined) => Promise<void>;
  kindPath: string;
  /** What kind and docker run with: the engine's DOCKER_HOST, our network. */
  env: Record<string, string>;
  nodeImage: string;
  /** The result row's node_image: the reference and where it came from. */
  nodeImageSource: 'built here' | 'built here earlier' | 'official (pulled)' | 'official (present)' | 'given';
  /**
   * The node image holds our CNI (node-image/node-cni.ts): its default CNI manifest is our RBAC, which
   * kind applies as it would kindnetd's.
   */
  ownCni: boolean;
  kubernetesVersion: string;
  /**
   * Istio's Gateway and VirtualService CRDs (istio-crds.ts), applied before istiod; empty: none (the
   * routing API not served, the gateway's metadata route only).
   */
  istioCrds: readonly KubernetesObject[];
  /** istio/ztunnel's binary as an image (`istioZtunnelBinary`), to load and run as the ztunnel DaemonSet. */
  istioZtunnelImage?: string;
  /** The slim root file system our images are FROM (Istio's images are built on it too). */
  slimRef?: string;
}

export interface ProvisionKindOptions {
  nodeImage: NodeImageChoice;
  images: readonly AppImage[];
  /** ZTUNNEL_BINARY with --ztunnel-impl istio-shared: packaged into an image of its own. */
  istioZtunnelBinary?: string;
  toolsDir?: string;
  engine?: EngineOptions;
}

/**
 * engine -> kind -> images, each a step with its own log and time: the Docker engine (the user's, or
 * ours started), kind (pinned, go install), Istio's routing CRDs (pinned istio.io/api), the node image
 * (official when asked and usable, else ours from the registries), our images. A failure past the engine step releases the engine (ours
 * stopped if this started it).
 */
export async function provisionKind(
  runner: StepRunner,
  options: ProvisionKindOptions,
): Promise<KindProvisioned> {
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const engine = await runner.step('engine', (step) => ensureDockerEngine(step, options.engine));
  try {
    const docker = { env: engine.env };
    const kind = await runner.step('kind', (step) =>
      ensureGoTool(KIND, {
        toolsDir,
        ...(step.signal ? { signal: step.signal } : {}),
        write: (t) => {
          step.note(t.trimEnd());
        },
      }),
    );
    const istioCrds = await runner.step('istio-crds', (step) => fetchIstioCrds(step));
    const node = await chooseNodeImage(runner, docker, options.nodeImage, toolsDir);
    const slimRef = await runner.step('slim-rootfs', (step) =>
      ensureRootfsImage(step, docker, SLIM_ROOTFS, toolsDir),
    );
    await runner.step('images', (step) =>
      ensureAppImages(step, docker, { images: options.images, slimRef, toolsDir }),
    );
    const binary = options.istioZtunnelBinary;
    const istioZtunnelImage = binary
      ? await runner.step('istio-ztunnel-image', (step) =>
          ensureIstioZtunnelImage(step, docker, { binary, slimRef, toolsDir }),
        )
      : undefined;
    return {
      engineOwner: engine.owner,
      release: () => engine.release(),
      keep: () => engine.keep(),
      noteCluster: (cluster) => engine.noteCluster(cluster),
      kindPath: kind.path,
      env: { ...engine.env, KIND_EXPERIMENTAL_DOCKER_NETWORK: KIND_NETWORK },
      istioCrds,
      slimRef,
      ...(istioZtunnelImage ? { istioZtunnelImage } : {}),
      ...node,
    };
  } catch (err) {
    await engine.release();
    throw err;
  }
}

async function chooseNodeImage(
  runner: StepRunner,
  docker: { env: Record<string, string> },
  choice: NodeImageChoice,
  toolsDir: string,
): Promise<Pick<KindProvisioned, 'nodeImage' | 'nodeImageSource' | 'kubernetesVersion' | 'ownCni'>> {
  if (choice !== 'auto') {
    const present = await runner.step('node-image-given', (step) => hasImage(step, docker, choice));
    if (!present)
      throw new HarnessError(
        ErrorCode.BadInput,
        `--node-image ${choice}: the Docker engine has no such image and the harness pulls none; build it, or use --node-image auto`,
      );
    return {
      nodeImage: choice,
      nodeImageSource: 'given',
      kubernetesVersion: /:(v\d+\.\d+\.\d+)/.exec(choice)?.[1] ?? '',
      ownCni: choice.startsWith(`${NODE_IMAGE_REPOSITORY}:`),
    };
  }
  const official = await runner.step('node-image-official', async (step) => {
    const info = await step.run('docker', ['info', '--format', '{{.CgroupVersion}}'], {
      env: docker.env,
      capture: true,
    });
    // The official image's kubelet (v1.37) refuses cgroup v1 (failCgroupV1, KEP-5573): ours then.
    if (info.trim() === '1') {
      step.note(
        'cgroup v1: the official node image (Kubernetes v1.37) would not start here; building ours',
        true,
      );
      return undefined;
    }
    if (await hasImage(step, docker, OFFICIAL_NODE_IMAGE)) return 'official (present)' as const;
    await step.run('docker', ['pull', OFFICIAL_NODE_IMAGE], {
      env: docker.env,
      allowFailure: true,
      timeoutMs: 120_000,
    });
    return (await hasImage(step, docker, OFFICIAL_NODE_IMAGE)) ? ('official (pulled)' as const) : undefined;
  });
  if (official)
    return {
      nodeImage: OFFICIAL_NODE_IMAGE,
      nodeImageSource: official,
      kubernetesVersion: 'v1.37.0',
      ownCni: false,
    };
  const built = await ensureNodeImage(runner, docker, toolsDir);
  return {
    nodeImage: built.ref,
    nodeImageSource: built.cached ? 'built here earlier' : 'built here',
    kubernetesVersion: KUBERNETES_VERSION,
    ownCni: true,
  };
}
