import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError, makeDirectory } from '../index.ts';
import { DEFAULT_TOOLS_DIR } from '../paths.ts';
import { findOnPath, isExecutable } from './find-on-path.ts';

/**
 * A program this project builds from the Go module proxy with `go install module@version`, pinned by
 * version and by the module's go.sum hash (the `h1:` line `go version -m` prints for the binary), so
 * what runs is the published source of that version and nothing else.
 */
export interface GoToolSpec {
  /** Short name, also the tools-folder entry: `.tools/<name>-v<version>/<binName>`. */
  name: string;
  /** What `go install` builds: `fortio.org/fortio`, `github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin`. */
  installPath: string;
  /** The module that holds it (the `mod` line of `go version -m`). */
  module: string;
  version: string;
  /** The module's go.sum hash for `version` (`h1:...`). */
  moduleSum: string;
  binName: string;
  /** When set, a program of that name on PATH is used if this says its version fits. */
  pathVersion?: (binPath: string, env: NodeJS.ProcessEnv) => Promise<string | undefined>;
  /** Why the project needs it, for messages. */
  why: string;
}

export type GoToolSource = 'tools' | 'path' | 'go';

export interface GoToolBinary {
  name: string;
  path: string;
  version: string;
  source: GoToolSource;
}

export interface EnsureGoToolOptions {
  toolsDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Where decisions and progress are written (stderr by default). */
  write?: (text: string) => void;
  signal?: AbortSignal;
}

export function pinnedToolPath(spec: GoToolSpec, toolsDir = DEFAULT_TOOLS_DIR): string {
  return join(toolsDir, `${spec.name}-v${spec.version}`, spec.binName);
}

/**
 * The pinned tool: already in the tools folder; else a fitting one on PATH (when the spec allows);
 * else `go install` into the tools folder, checked against the pinned module hash before it is moved
 * into place with one rename (never a half-built binary). A clear error names what to do otherwise.
 */
export async function ensureGoTool(
  spec: GoToolSpec,
  options: EnsureGoToolOptions = {},
): Promise<GoToolBinary> {
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const env = options.env ?? process.env;
  const write = options.write ?? ((t: string) => process.stderr.write(t));
  const pinned = pinnedToolPath(spec, toolsDir);
  if (await isExecutable(pinned))
    return { name: spec.name, path: pinned, version: spec.version, source: 'tools' };
  const reasons: string[] = [];
  if (spec.pathVersion) {
    const onPath = await findOnPath(spec.binName, env);
    const version = onPath ? await spec.pathVersion(onPath, env) : undefined;
    if (onPath && version) {
      write(`${spec.name}: using ${onPath} (v${version})\n`);
      return { name: spec.name, path: onPath, version, source: 'path' };
    }
    reasons.push(onPath ? `${onPath} is not v${spec.version}` : `no ${spec.binName} on PATH`);
  }
  const go = await findOnPath('go', env);
  if (!go) {
    reasons.push('no go on PATH to build it');
    throw missing(spec, reasons);
  }
  write(`${spec.name}: building v${spec.version} with go install ${spec.installPath}@v${spec.version}\n`);
  await makeDirectory(toolsDir);
  const scratch = await mkdtemp(join(toolsDir, `.${spec.name}-build-`));
  try {
    const built = await execa(go, ['install', `${spec.installPath}@v${spec.version}`], {
      env: { ...env, GOBIN: scratch, GOFLAGS: '-trimpath' },
      extendEnv: false,
      reject: false,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    if (built.exitCode !== 0) {
      reasons.push(`go install failed: ${built.stderr.split('\n').slice(-5).join(' | ')}`);
      throw missing(spec, reasons);
    }
    const binPath = join(scratch, spec.binName);
    await checkModuleSum(go, binPath, spec, env);
    await makeDirectory(join(toolsDir, `${spec.name}-v${spec.version}`));
    await rename(binPath, pinned);
    write(`${spec.name}: ready: ${pinned}\n`);
    return { name: spec.name, path: pinned, version: spec.version, source: 'go' };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `go version -m` must name the pinned module, version and go.sum hash. */
async function checkModuleSum(
  go: string,
  binPath: string,
  spec: GoToolSpec,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const info = await execa(go, ['version', '-m', binPath], { env, extendEnv: false, reject: false });
  const line = info.stdout.split('\n').find((l) => /^\s*mod\s/.test(l)) ?? '';
  const [, module, version, sum] = line.trim().split(/\s+/);
  if (module !== spec.module || version !== `v${spec.version}` || sum !== spec.moduleSum)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `${spec.name}: the built binary is ${JSON.stringify(line.trim())}, expected mod ${spec.module} v${spec.version} ${spec.moduleSum}; not installed`,
    );
}

function missing(spec: GoToolSpec, reasons: string[]): HarnessError {
  return new HarnessError(
    ErrorCode.ToolMissing,
    `${spec.name} v${spec.version} (${spec.why}) is not available and could not be built:\n  - ${reasons.join('\n  - ')}\n` +
      `Install Go >= 1.26 with access to a Go module proxy and run \`npm run tools\`.`,
  );
}
