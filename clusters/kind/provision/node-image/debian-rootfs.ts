import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError, makeDirectory } from '../../../../lib/index.ts';
import { findOnPath } from '../../../../lib/install/find-on-path.ts';
import { hasImage } from '../docker-images.ts';
import type { DockerCli } from '../docker-images.ts';
import type { LoggedStep } from '../../../steps/step-runner.ts';

/** A Debian root file system made by debootstrap from Debian's packages, imported as an image. */
export interface RootfsSpec {
  /** Image name part: `ztunnel-harness/rootfs-<name>:<hash>`. */
  name: string;
  suite: 'bookworm';
  /** debootstrap --include (minbase plus these and their dependencies). */
  packages: readonly string[];
}

const DEFAULT_MIRROR = 'http://deb.debian.org/debian';

/** The machine's own Debian mirror (apt's sources), which is the one this machine can reach. */
export async function debianMirror(): Promise<string> {
  const sources = [
    await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(() => ''),
    await readFile('/etc/apt/sources.list', 'utf8').catch(() => ''),
  ].join('\n');
  const deb822 = /^URIs:\s*(\S+\/debian)\s*$/m.exec(sources)?.[1];
  const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\b/m.exec(sources)?.[1];
  return deb822 ?? oneLine ?? DEFAULT_MIRROR;
}

/** Debian's archive keys: debootstrap checks the Release file's signature against them. */
export const DEBIAN_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';

/**
 * debootstrap, gpgv and Debian's archive keyring (debootstrap verifies what it fetches with them),
 * from PATH and the file system, else Debian's packages (as root on Debian); else what to install
 * (exit 2).
 */
async function ensureDebootstrap(step: LoggedStep): Promise<void> {
  const missing = [
    ...((await findOnPath('debootstrap', process.env)) ? [] : ['debootstrap']),
    ...((await findOnPath('gpgv', process.env)) ? [] : ['gpgv']),
    ...(existsSync(DEBIAN_KEYRING) ? [] : ['debian-archive-keyring']),
  ];
  if (missing.length === 0) return;
  const isDebian =
    existsSync('/etc/debian_version') && (await findOnPath('apt-get', process.env)) !== undefined;
  if (process.getuid?.() !== 0 || !isDebian)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} needed to build the node image and our images from Debian's signed packages (no registry image is pulled) and not found; install ${missing.length > 1 ? 'them' : 'it'} (apt-get install ${missing.join(' ')}), or give --node-image a node image the engine has`,
    );
  step.note(`installing ${missing.join(', ')} (apt-get)`, true);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await step.run('apt-get', ['update', '-qq'], { env });
  await step.run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

export function rootfsRef(spec: RootfsSpec): string {
  const hash = createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
  return `ztunnel-harness/rootfs-${spec.name}:${hash}`;
}

/**
 * The rootfs image, built once: `debootstrap --variant=minbase` of the suite with the packages, apt's
 * caches removed, `tar | docker import` (one layer; tagged only when the import succeeds).
 */
export async function ensureRootfsImage(
  step: LoggedStep,
  docker: DockerCli,
  spec: RootfsSpec,
  toolsDir = DEFAULT_TOOLS_DIR,
): Promise<string> {
  const ref = rootfsRef(spec);
  if (await hasImage(step, docker, ref)) {
    step.note(`${ref}: already built`, true);
    return ref;
  }
  const dir = join(toolsDir, 'kind', 'rootfs', `${spec.name}.partial`);
  await rm(dir, { recursive: true, force: true });
  await makeDirectory(dir);
  try {
    await ensureDebootstrap(step);
    const mirror = await debianMirror();
    step.note(
      `debootstrap ${spec.suite} (${spec.packages.length} packages) from ${mirror}, signatures checked against ${DEBIAN_KEYRING}`,
      true,
    );
    // Every package checked against the archive's signed Release file; no unsigned fallback.
    await step.run('debootstrap', [
      '--variant=minbase',
      `--keyring=${DEBIAN_KEYRING}`,
      '--force-check-gpg',
      `--include=${spec.packages.join(',')}`,
      spec.suite,
      dir,
      mirror,
    ]);
    await step.run('sh', [
      '-c',
      'rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/* "$1"/var/log/*.log "$1"/tmp/*',
      'sh',
      dir,
    ]);
    step.note(`docker import ${ref}`, true);
    await step.run(
      'bash',
      ['-o', 'pipefail', '-c', 'tar -C "$1" --numeric-owner -c . | docker import - "$2"', 'bash', dir, ref],
      {
        env: docker.env,
      },
    );
    return ref;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
