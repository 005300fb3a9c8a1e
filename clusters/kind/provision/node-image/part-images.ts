import { createHash } from 'node:crypto';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TOOLS_DIR, makeDirectory } from '../../../../lib/index.ts';
import { buildImage, hasImage } from '../docker-images.ts';
import type { DockerCli } from '../docker-images.ts';
import type { LoggedStep } from '../../../steps/step-runner.ts';
import { COREDNS_VERSION, ETCD_IMAGE_TAG, KUBERNETES_VERSION, PAUSE_VERSION } from './pins.ts';

/**
 * An image kubeadm runs (a static pod, kube-proxy, CoreDNS, the pod sandbox): one binary on the slim
 * Debian base, named inside the node as kubeadm expects it (`kubeadm config images list`), so the
 * kubelet finds it there and never pulls.
 */
export interface PartImage {
  name: string;
  /** What kubeadm asks for (registry.k8s.io/...): the node's containerd tags it so. */
  kubeadmRef: string;
  /** The binary's path inside the image, and where it comes from (unset: the base has it). */
  binary?: { from: string; to: string };
  entrypoint?: readonly string[];
}

export function partImages(bins: Record<string, string>): PartImage[] {
  const kube = (name: string): PartImage => ({
    name,
    kubeadmRef: `registry.k8s.io/${name}:${KUBERNETES_VERSION}`,
    binary: { from: bins[name] ?? '', to: `/usr/local/bin/${name}` },
  });
  return [
    kube('kube-apiserver'),
    kube('kube-controller-manager'),
    kube('kube-scheduler'),
    kube('kube-proxy'),
    {
      name: 'etcd',
      kubeadmRef: `registry.k8s.io/etcd:${ETCD_IMAGE_TAG}`,
      binary: { from: bins['etcd'] ?? '', to: '/usr/local/bin/etcd' },
    },
    {
      // kubeadm's CoreDNS Deployment passes only args (`-conf /etc/coredns/Corefile`): the image's
      // entrypoint is /coredns, as the official image's is.
      name: 'coredns',
      kubeadmRef: `registry.k8s.io/coredns/coredns:${COREDNS_VERSION}`,
      binary: { from: bins['coredns'] ?? '', to: '/coredns' },
      entrypoint: ['/coredns'],
    },
    {
      // The pod sandbox: catatonit -P waits for a signal as pause does (and reaps, as PID 1 must).
      name: 'pause',
      kubeadmRef: `registry.k8s.io/pause:${PAUSE_VERSION}`,
      entrypoint: ['/usr/bin/catatonit', '-P'],
    },
  ];
}

export function partDockerfile(baseRef: string, part: PartImage): string {
  return [
    `FROM ${baseRef}`,
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ...(part.binary ? [`COPY ${part.name} ${part.binary.to}`] : []),
    ...(part.entrypoint ? [`ENTRYPOINT ${JSON.stringify(part.entrypoint)}`] : []),
    '',
  ].join('\n');
}

/** Each part image built once per base and binaries (`binariesHash`): our tag, and kubeadm's name. */
export async function ensurePartImages(
  step: LoggedStep,
  docker: DockerCli,
  options: { baseRef: string; bins: Record<string, string>; binariesHash: string; toolsDir?: string },
): Promise<{ ref: string; kubeadmRef: string }[]> {
  const built: { ref: string; kubeadmRef: string }[] = [];
  for (const part of partImages(options.bins)) {
    const dockerfile = partDockerfile(options.baseRef, part);
    const hash = createHash('sha256')
      .update(dockerfile)
      .update(options.binariesHash)
      .digest('hex')
      .slice(0, 12);
    const ref = `ztunnel-harness/kind-part-${part.name}:${hash}`;
    built.push({ ref, kubeadmRef: part.kubeadmRef });
    if (await hasImage(step, docker, ref)) continue;
    const context = join(options.toolsDir ?? DEFAULT_TOOLS_DIR, 'kind', 'context', `part-${part.name}`);
    await rm(context, { recursive: true, force: true });
    await makeDirectory(context);
    try {
      if (part.binary) await copyFile(part.binary.from, join(context, part.name));
      await writeFile(join(context, 'Dockerfile'), dockerfile);
      step.note(`building ${ref} (${part.kubeadmRef} in the node)`, true);
      await buildImage(step, docker, { context, tag: ref });
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  }
  return built;
}
