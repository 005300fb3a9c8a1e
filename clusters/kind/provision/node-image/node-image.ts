import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError, makeDirectory } from '../../../../lib/index.ts';
import { buildImage, hasImage } from '../docker-images.ts';
import type { DockerCli } from '../docker-images.ts';
import { buildGoPrograms, buildSpecHash } from '../go-build-module.ts';
import type { LoggedStep, StepRunner } from '../../../steps/step-runner.ts';
import { NODE_RUNC_WRAPPER, runcWrapperScript } from '../runc-wrapper.ts';
import { ensureRootfsImage, rootfsRef } from './debian-rootfs.ts';
import { DEFAULT_STORAGE_MANIFEST, editContainerdConfig, nodeBaseDockerfile } from './node-files.ts';
import {
  DEFAULT_CNI_MANIFEST,
  NODE_CNI_SCRIPT_PATH,
  NODE_CNI_UNIT,
  nodeCniScript,
  nodeCniUnit,
} from './node-cni.ts';
import { ensurePartImages, partDockerfile, partImages } from './part-images.ts';
import {
  COREDNS_BUILD,
  CRICTL_BUILD,
  ETCD_BUILD,
  KIND_MODULE,
  KUBERNETES_BUILD,
  KUBERNETES_VERSION,
} from './pins.ts';
import { NODE_ROOTFS, SLIM_ROOTFS } from './rootfs-specs.ts';

export const NODE_IMAGE_REPOSITORY = 'ztunnel-harness/kind-node';
const GO_BUILDS = [KUBERNETES_BUILD, ETCD_BUILD, COREDNS_BUILD, CRICTL_BUILD];

export interface NodeImage {
  ref: string;
  kubernetesVersion: string;
  /** It was there from an earlier run: nothing was built. */
  cached: boolean;
}

/** Every file the recipe writes into the node, by path: part of what names the image. */
function harnessFiles(kindContainerdConfig: string): Record<string, { text: string; mode: number }> {
  return {
    'etc/containerd/config.toml': { text: editContainerdConfig(kindContainerdConfig), mode: 0o644 },
    [NODE_RUNC_WRAPPER.slice(1)]: { text: runcWrapperScript(), mode: 0o755 },
    [NODE_CNI_SCRIPT_PATH.slice(1)]: { text: nodeCniScript(), mode: 0o755 },
    [`etc/systemd/system/${NODE_CNI_UNIT}`]: { text: nodeCniUnit(), mode: 0o644 },
    'kind/manifests/default-storage.yaml': { text: DEFAULT_STORAGE_MANIFEST, mode: 0o644 },
    'kind/manifests/default-cni.yaml': { text: DEFAULT_CNI_MANIFEST, mode: 0o644 },
    'kind/version': { text: KUBERNETES_VERSION, mode: 0o644 },
  };
}

/** kind's node image files (images/base/files) from its module on the Go module proxy, hash checked. */
async function kindModuleDir(step: LoggedStep): Promise<string> {
  const out = await step.run(
    'go',
    ['mod', 'download', '-json', `${KIND_MODULE.module}@${KIND_MODULE.version}`],
    {
      capture: true,
      env: { GOFLAGS: '-mod=mod' },
    },
  );
  const info = JSON.parse(out) as { Dir?: string; Sum?: string };
  if (info.Sum !== KIND_MODULE.sum || !info.Dir)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `${KIND_MODULE.module}@${KIND_MODULE.version} has hash ${String(info.Sum)}, pinned ${KIND_MODULE.sum}`,
    );
  return join(info.Dir, 'images', 'base', 'files');
}

/** The image's name: every input of the recipe (pins, packages, files), so a change names a new image. */
function nodeImageRef(files: Record<string, { text: string; mode: number }>, kindFiles: string): string {
  const hash = createHash('sha256')
    .update(
      JSON.stringify({
        builds: GO_BUILDS.map(buildSpecHash),
        node: rootfsRef(NODE_ROOTFS),
        slim: rootfsRef(SLIM_ROOTFS),
      }),
    )
    .update(JSON.stringify(files))
    .update(kindFiles)
    .update(nodeBaseDockerfile('rootfs'))
    .update(
      partImages({})
        .map((p) => partDockerfile('slim', p))
        .join(''),
    )
    .digest('hex')
    .slice(0, 12);
  return `${NODE_IMAGE_REPOSITORY}:${KUBERNETES_VERSION}-${hash}`;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/**
 * kind's node image recipe, from the package registries only (kind pkg/build/nodeimage/buildcontext.go
 * `buildImage`: binaries into /usr/bin, /kind/version, images imported into the node's containerd with
 * `ctr images import --no-unpack`, `docker commit`): `kind build node-image` itself cannot be used
 * here, because it pulls kindnetd, local-path-provisioner and every image it did not build
 * (`prePullImagesAndWriteManifests`) and no registry is reachable. Named by content: a second run
 * finds it and builds nothing.
 */
export async function ensureNodeImage(
  runner: StepRunner,
  docker: DockerCli,
  toolsDir = DEFAULT_TOOLS_DIR,
): Promise<NodeImage> {
  const plan = await runner.step('node-image-plan', async (step) => {
    const kindFiles = await kindModuleDir(step);
    const list = await listFiles(kindFiles);
    const texts = await Promise.all(
      list.map(async (f) => `${f}\n${await readFile(join(kindFiles, f), 'utf8')}`),
    );
    const files = harnessFiles(await readFile(join(kindFiles, 'etc', 'containerd', 'config.toml'), 'utf8'));
    const ref = nodeImageRef(files, texts.join('\n'));
    return { kindFiles, files, ref, exists: await hasImage(step, docker, ref) };
  });
  if (plan.exists) return { ref: plan.ref, kubernetesVersion: KUBERNETES_VERSION, cached: true };
  const bins: Record<string, string> = {};
  for (const spec of GO_BUILDS) {
    const built = await runner.step(`build-${spec.name}`, (step) => buildGoPrograms(step, spec, toolsDir));
    Object.assign(bins, built.paths);
  }
  const binariesHash = GO_BUILDS.map(buildSpecHash).join(',');
  const rootfs = await runner.step('debian-rootfs', async (step) => ({
    node: await ensureRootfsImage(step, docker, NODE_ROOTFS, toolsDir),
    slim: await ensureRootfsImage(step, docker, SLIM_ROOTFS, toolsDir),
  }));
  const parts = await runner.step('part-images', (step) =>
    ensurePartImages(step, docker, { baseRef: rootfs.slim, bins, binariesHash, toolsDir }),
  );
  const baseRef = `${plan.ref}-base`;
  await runner.step('node-base-image', async (step) => {
    if (await hasImage(step, docker, baseRef)) return;
    const context = await mkdtemp(join(toolsDir, 'kind', 'context', 'node-'));
    try {
      const root = join(context, 'root');
      await cp(plan.kindFiles, root, { recursive: true });
      for (const f of await listFiles(root)) {
        const executable = f.startsWith('usr/local/bin/') || f.startsWith('kind/bin/');
        await chmod(join(root, f), executable ? 0o755 : 0o644);
      }
      for (const [path, file] of Object.entries(plan.files)) {
        await makeDirectory(dirname(join(root, path)));
        await writeFile(join(root, path), file.text, { mode: file.mode });
        await chmod(join(root, path), file.mode);
      }
      await makeDirectory(join(root, 'usr', 'bin'));
      for (const bin of ['kubelet', 'kubeadm', 'kubectl'])
        await copyFile(bins[bin] ?? '', join(root, 'usr', 'bin', bin));
      await copyFile(bins['crictl'] ?? '', join(root, 'usr', 'local', 'bin', 'crictl'));
      await writeFile(join(context, 'Dockerfile'), nodeBaseDockerfile(rootfs.node));
      await buildImage(step, docker, { context, tag: baseRef });
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  });
  await runner.step('node-image', (step) =>
    assembleNodeImage(step, docker, { baseRef, parts, ref: plan.ref, toolsDir }),
  );
  return { ref: plan.ref, kubernetesVersion: KUBERNETES_VERSION, cached: false };
}

/**
 * The part images into the node's containerd (kind's containerdImporter: containerd started in a
 * build container, `ctr images import --no-unpack`, tagged as kubeadm names them), then
 * `docker commit`. The build container is removed whatever happens.
 */
async function assembleNodeImage(
  step: LoggedStep,
  docker: DockerCli,
  options: { baseRef: string; parts: { ref: string; kubeadmRef: string }[]; ref: string; toolsDir: string },
): Promise<void> {
  const name = `ztunnel-harness-node-build-${String(process.pid)}`;
  const scratch = await mkdtemp(join(options.toolsDir, 'kind', 'context', 'images-'));
  const d = (args: string[], how: { input?: string; capture?: boolean; allowFailure?: boolean } = {}) =>
    step.run('docker', args, { env: docker.env, ...how });
  const exec = (script: string) => d(['exec', name, 'bash', '-c', script]);
  try {
    const archive = join(scratch, 'parts.tar');
    await d(['save', '--output', archive, ...options.parts.map((p) => p.ref)]);
    step.note(`images archive: ${String(Math.round((await stat(archive)).size / 1e6))} MB`, true);
    await d(['rm', '--force', name], { allowFailure: true });
    await d([
      'run',
      '--detach',
      '--name',
      name,
      '--network',
      'none',
      '--entrypoint=sleep',
      '--security-opt',
      'seccomp=unconfined',
      options.baseRef,
      'infinity',
    ]);
    await d(['cp', archive, `${name}:/parts.tar`]);
    await exec('nohup containerd > /var/log/containerd-build.log 2>&1 &');
    await exec(
      'for i in $(seq 1 50); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && exit 0; sleep 0.2; done; cat /var/log/containerd-build.log; exit 1',
    );
    await exec(
      'ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests /parts.tar',
    );
    for (const part of options.parts) {
      const imported = `docker.io/${part.ref}`;
      await exec(
        `ctr --namespace=k8s.io images tag --force ${imported} ${part.kubeadmRef} && ctr --namespace=k8s.io images rm ${imported}`,
      );
    }
    await exec('ctr --namespace=k8s.io images list -q');
    await exec(
      'pkill containerd; for i in $(seq 1 50); do pgrep containerd >/dev/null || break; sleep 0.2; done; rm -f /parts.tar /var/log/containerd-build.log',
    );
    await d([
      'commit',
      '--change',
      'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]',
      '--change',
      `LABEL ztunnel-harness.node-image=${options.ref}`,
      name,
      options.ref,
    ]);
  } finally {
    await d(['rm', '--force', '--volumes', name], { allowFailure: true });
    await rm(scratch, { recursive: true, force: true });
  }
}
