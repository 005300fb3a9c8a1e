// istio/ztunnel's own binary (the user's ZTUNNEL_BINARY, never built or shipped here) packaged into
// an image at run time, for --ztunnel-impl istio-shared on kind: the binary alone on our slim Debian
// root file system (bookworm, glibc 2.36), where Istio's image has it on distroless Debian 12:
// `/usr/local/bin/ztunnel`, run with `proxy ztunnel` (manifests/charts/ztunnel/templates/daemonset.yaml).
// The tag is the binary's content hash, so a new build is a new image and the row names it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TOOLS_DIR, makeDirectory } from '../../../lib/index.ts';
import { ISTIO_ZTUNNEL_IMAGE_REPOSITORY } from '../../manifests/index.ts';
import { buildImage, hasImage } from './docker-images.ts';
import type { DockerCli } from './docker-images.ts';
import type { LoggedStep } from '../../steps/step-runner.ts';

/** Where the binary sits in the image, as in Istio's ztunnel image. */
export const ISTIO_ZTUNNEL_PATH = '/usr/local/bin/ztunnel';

/** The first 16 hex of the binary's sha256. */
export async function binaryDigest(binary: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(binary)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 16);
}

/** The Dockerfile of the image: FROM our slim root file system, nothing pulled. */
export function istioZtunnelDockerfile(slimRef: string): string {
  return [
    "# istio/ztunnel's binary (ZTUNNEL_BINARY) on the slim rootfs; written by the harness at run time.",
    `FROM ${slimRef}`,
    `COPY ztunnel ${ISTIO_ZTUNNEL_PATH}`,
    `ENTRYPOINT ["${ISTIO_ZTUNNEL_PATH}"]`,
    '',
  ].join('\n');
}

/**
 * The image `ztunnel-harness/istio-ztunnel:<digest>`, built when the engine has none of that tag
 * (a hard link of the binary and a generated Dockerfile in a context of its own under the tools
 * folder; removed after the build).
 */
export async function ensureIstioZtunnelImage(
  step: LoggedStep,
  docker: DockerCli,
  options: { binary: string; slimRef: string; toolsDir?: string },
): Promise<string> {
  const digest = await binaryDigest(options.binary);
  const image = `${ISTIO_ZTUNNEL_IMAGE_REPOSITORY}:${digest}`;
  if (await hasImage(step, docker, image)) {
    step.note(`${image} is there (ZTUNNEL_BINARY ${options.binary}, sha256 ${digest}...)`, true);
    return image;
  }
  const context = join(options.toolsDir ?? DEFAULT_TOOLS_DIR, 'kind', 'context', 'istio-ztunnel');
  await rm(context, { recursive: true, force: true });
  await makeDirectory(context);
  try {
    await link(options.binary, join(context, 'ztunnel')).catch(() =>
      copyFile(options.binary, join(context, 'ztunnel')),
    );
    await writeFile(join(context, 'Dockerfile'), istioZtunnelDockerfile(options.slimRef));
    step.note(`docker build --tag ${image} (ZTUNNEL_BINARY ${options.binary})`, true);
    await buildImage(step, docker, { context, tag: image });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return image;
}
