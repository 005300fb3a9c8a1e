import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, cp, link, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import {
  DEFAULT_TOOLS_DIR,
  ErrorCode,
  HarnessError,
  makeDirectory,
  PROJECT_ROOT,
} from '../../../lib/index.ts';
import { pinnedEnvoyPath, pinnedToolPath } from '../../../lib/install/index.ts';
import { FORTIO, GO_HTTPBIN } from '../../../lib/install/index.ts';
import { ensureZdsRelay, zdsRelayPath } from '../../../mesh/zds/index.ts';
import { buildImage, imageLabel } from './docker-images.ts';
import type { DockerCli } from './docker-images.ts';
import type { LoggedStep } from '../../steps/step-runner.ts';

/** The label that says which staged context an image was built from (a second run rebuilds nothing). */
export const CONTENT_LABEL = 'ztunnel-harness.content';

/** The folders of ours the images hold (their static imports reach only these: lib/ mesh/ ztunnel/ apps/). */
const APP_DIRS = ['lib', 'mesh', 'ztunnel', 'apps'] as const;

export interface AppImage {
  image: string;
  /** The Dockerfile stage. */
  target: string;
}

/** Tests are not shipped (as .dockerignore said: `**\/*.test.ts`, `**\/test`). */
const isShipped = (path: string): boolean => !/(^|\/)test(\/|$)/.test(path) && !path.endsWith('.test.ts');

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** A big binary into the context: a hard link where it can be (same file system), else a copy. */
async function place(from: string, to: string): Promise<void> {
  await makeDirectory(dirname(to));
  await link(from, to).catch(() => copyFile(from, to));
}

/** The binaries the images hold, where `npm ci` and `npm run tools` put them. */
function binaryPaths(root: string, toolsDir: string): Record<string, string> {
  return {
    node: join(root, 'node_modules', 'node', 'bin', 'node'),
    envoy: pinnedEnvoyPath(toolsDir),
    'go-httpbin': pinnedToolPath(GO_HTTPBIN, toolsDir),
    // The load generator's pod (--load-from cluster): the fortio `npm run tools` built.
    fortio: pinnedToolPath(FORTIO, toolsDir),
    // istio-cni's node agent speaking ZDS to istio/ztunnel's binary (mesh/zds, ours, Go stdlib only).
    'zds-relay': zdsRelayPath(toolsDir),
  };
}

/** The runtime dependencies' folders, as npm resolves them (`npm ls --omit=dev --all --parseable`). */
async function runtimePackages(root: string): Promise<string[]> {
  const out = await execa('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, reject: false });
  const tops = new Set<string>();
  for (const line of out.stdout.split('\n')) {
    const rel = relative(root, line.trim());
    const parts = rel.split('/');
    if (parts[0] !== 'node_modules' || parts.length < 2) continue;
    tops.add(parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/'));
  }
  if (tops.size === 0)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `npm ls --omit=dev found no runtime packages in ${root}; run npm ci`,
    );
  return [...tops].sort();
}

/** sha256 over every staged file's path and bytes. */
async function hashTree(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await listFiles(dir)) {
    hash.update(`${file}\0`);
    for await (const chunk of createReadStream(join(dir, file))) hash.update(chunk as Buffer);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The build context, staged from the repository and the tools folder: the Dockerfile, Node 24 (the
 * `node` package's binary), app/ (package files, runtime node_modules, our sources without tests),
 * Envoy, go-httpbin and fortio as `npm run tools` pinned them, and our zds-relay.
 */
export async function stageAppContext(
  step: LoggedStep,
  options: { root?: string; toolsDir?: string } = {},
): Promise<{ dir: string; hash: string }> {
  const root = options.root ?? PROJECT_ROOT;
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const dir = join(toolsDir, 'kind', 'context', 'app');
  await rm(dir, { recursive: true, force: true });
  await makeDirectory(join(dir, 'app'));
  for (const [name, from] of Object.entries(binaryPaths(root, toolsDir))) {
    if (!(await stat(from).catch(() => undefined)))
      throw new HarnessError(
        ErrorCode.ToolMissing,
        `${name} is not at ${from}; run \`npm ci && npm run tools\``,
      );
    await place(from, join(dir, name));
  }
  await copyFile(join(root, 'Dockerfile'), join(dir, 'Dockerfile'));
  for (const f of ['package.json', 'package-lock.json']) await copyFile(join(root, f), join(dir, 'app', f));
  for (const d of APP_DIRS)
    await cp(join(root, d), join(dir, 'app', d), {
      recursive: true,
      filter: (src) => isShipped(relative(root, src)),
    });
  const packages = await runtimePackages(root);
  for (const p of packages)
    await cp(join(root, p), join(dir, 'app', p), { recursive: true, dereference: false });
  const hash = await hashTree(dir);
  step.note(`staged ${dir}: ${String(packages.length)} runtime packages, content ${hash}`, true);
  return { dir, hash };
}

/**
 * What names the content without staging it: every shipped source file, the package files, the
 * Dockerfile and the binaries, by path, size and modification time (a touched file builds again;
 * the runtime node_modules follow from package-lock.json), and the slim rootfs the images are FROM.
 */
async function contentKey(root: string, toolsDir: string, slimRef: string): Promise<string> {
  const hash = createHash('sha256').update(`${slimRef}\n`);
  const files = [
    ...['Dockerfile', 'package.json', 'package-lock.json'].map((f) => join(root, f)),
    ...(
      await Promise.all(
        APP_DIRS.map(async (d) =>
          (await listFiles(join(root, d))).filter(isShipped).map((f) => join(root, d, f)),
        ),
      )
    ).flat(),
    ...Object.values(binaryPaths(root, toolsDir)),
  ];
  for (const file of files) {
    const s = await stat(file).catch(() => undefined);
    hash.update(`${relative(root, file)} ${String(s?.size)} ${String(s?.mtimeMs)}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Our images, each built when the engine has none from this content (its CONTENT_LABEL), with the
 * legacy builder from the staged context, `FROM` the slim rootfs (no pull). The context is staged
 * only when something is to be built.
 */
export async function ensureAppImages(
  step: LoggedStep,
  docker: DockerCli,
  options: { images: readonly AppImage[]; slimRef: string; root?: string; toolsDir?: string },
): Promise<{ built: string[]; reused: string[] }> {
  const root = options.root ?? PROJECT_ROOT;
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  // Built from our source on first use (seconds), as the local backend's shared mode builds it.
  await ensureZdsRelay({ toolsDir, ...(step.signal ? { signal: step.signal } : {}) });
  const content = await contentKey(root, toolsDir, options.slimRef);
  const built: string[] = [];
  const reused: string[] = [];
  const toBuild: AppImage[] = [];
  for (const image of options.images) {
    if ((await imageLabel(step, docker, image.image, CONTENT_LABEL)) === content) reused.push(image.image);
    else toBuild.push(image);
  }
  if (toBuild.length === 0) {
    step.note(`our images are built from this content (${content}): ${reused.join(', ')}`, true);
    return { built, reused };
  }
  const context = await stageAppContext(step, { root, toolsDir });
  for (const { image, target } of toBuild) {
    step.note(`docker build --target ${target} --tag ${image}`, true);
    await buildImage(step, docker, {
      context: context.dir,
      tag: image,
      target,
      labels: { [CONTENT_LABEL]: content },
      buildArgs: { SLIM: options.slimRef },
    });
    built.push(image);
  }
  return { built, reused };
}
