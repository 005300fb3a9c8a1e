import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { execa } from 'execa';
import { dirname, join } from 'node:path';
import {
  createProgress,
  createSystemClock,
  ErrorCode,
  HarnessError,
  isHarnessError,
} from '../../lib/index.ts';
import type { Clock, Progress } from '../../lib/index.ts';
import { DEFAULT_TOOLS_DIR } from '../paths.ts';
import { buildK6WithGo } from './k6-go-build.ts';
import { downloadK6, K6_RELEASES_URL } from './k6-download.ts';
import { findOnPath, isExecutable, probeK6Version } from './k6-probe.ts';
import { isGoVersionFit, isK6VersionFit, K6_MIN_GO, K6_VERSION } from './k6-version.ts';

export type K6Source = 'tools' | 'path' | 'go' | 'download';

export interface K6Binary {
  path: string;
  version: string;
  source: K6Source;
}

export interface EnsureK6Options {
  toolsDir?: string;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Where progress and decisions are written (stderr by default). */
  write?: (text: string) => void;
  isTty?: boolean;
  signal?: AbortSignal;
}

/** Where the pinned k6 lives once provisioned. */
export function pinnedK6Path(toolsDir: string): string {
  return join(toolsDir, `k6-v${K6_VERSION}`, process.platform === 'win32' ? 'k6.exe' : 'k6');
}

/** How ensureK6's steps report: lines for the user, and why each source did not do. */
interface Search {
  toolsDir: string;
  env: NodeJS.ProcessEnv;
  write: (t: string) => void;
  say: (line: string) => void;
  reasons: string[];
}

/**
 * Finds or provisions the pinned k6, in this order: the tools folder; a `k6` on PATH whose version
 * fits; a build with `go` when Go is present; the release download. Says what it does at each step.
 */
export async function ensureK6(options: EnsureK6Options = {}): Promise<K6Binary> {
  const write = options.write ?? ((t: string) => process.stderr.write(t));
  const search: Search = {
    toolsDir: options.toolsDir ?? DEFAULT_TOOLS_DIR,
    env: options.env ?? process.env,
    write,
    say: (line) => {
      write(`k6: ${line}\n`);
    },
    reasons: [],
  };
  return (await findInstalled(search)) ?? (await provision(search, options));
}

/** The pinned k6 in the tools folder, or a fitting one on PATH. */
async function findInstalled({ toolsDir, env, say, reasons }: Search): Promise<K6Binary | undefined> {
  const pinned = pinnedK6Path(toolsDir);
  const pinnedVersion = (await isExecutable(pinned)) ? await probeK6Version(pinned, env) : undefined;
  if (pinnedVersion === K6_VERSION) return { path: pinned, version: pinnedVersion, source: 'tools' };
  const onPath = await findOnPath('k6', env);
  if (!onPath) {
    reasons.push('no k6 on PATH');
    return undefined;
  }
  const version = await probeK6Version(onPath, env);
  if (version && isK6VersionFit(version)) {
    say(`using ${onPath} (v${version}, fits >= ${K6_VERSION} < ${nextMajor()})`);
    return { path: onPath, version, source: 'path' };
  }
  reasons.push(
    `${onPath} reports ${version ? `v${version}` : 'no version'}, not >= ${K6_VERSION} < ${nextMajor()}`,
  );
  return undefined;
}

/** Builds k6 with go, else downloads the release, into the tools folder; says why neither worked. */
async function provision(search: Search, options: EnsureK6Options): Promise<K6Binary> {
  const { toolsDir, env, say, reasons } = search;
  const pinned = pinnedK6Path(toolsDir);
  await mkdir(toolsDir, { recursive: true });
  const progressFor = (phase: string): Progress =>
    createProgress({
      phase,
      clock: options.clock ?? createSystemClock(),
      write: search.write,
      ...(options.isTty === undefined ? {} : { isTty: options.isTty }),
    });
  const attempts: {
    source: K6Source;
    run: () => Promise<{ binPath: string; workDir: string } | undefined>;
  }[] = [
    {
      source: 'go',
      run: () => tryGo(env, toolsDir, progressFor('k6: building from source'), reasons, options.signal),
    },
    {
      source: 'download',
      run: () => {
        const baseUrl = env['K6_DOWNLOAD_BASE_URL'] ?? K6_RELEASES_URL;
        say(`downloading the v${K6_VERSION} release from ${baseUrl}`);
        return downloadK6({
          baseUrl,
          scratchParent: toolsDir,
          progress: progressFor('k6: downloading'),
          ...(options.signal ? { signal: options.signal } : {}),
        });
      },
    },
  ];
  for (const attempt of attempts) {
    try {
      const built = await attempt.run();
      if (!built) continue;
      const version = await install(built.binPath, built.workDir, pinned, env);
      say(`ready: ${pinned} (v${version}, ${attempt.source === 'go' ? 'built with go' : 'downloaded'})`);
      return { path: pinned, version, source: attempt.source };
    } catch (err) {
      if (isHarnessError(err, ErrorCode.Aborted) || options.signal?.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      say(`${attempt.source} failed: ${message}`);
      reasons.push(`${attempt.source === 'go' ? 'go build' : 'download'} failed: ${message}`);
    }
  }
  throw new HarnessError(
    ErrorCode.ToolMissing,
    `k6 v${K6_VERSION} is not available and could not be provisioned:\n  - ${reasons.join('\n  - ')}\n` +
      `Install Go >= ${K6_MIN_GO} (https://go.dev/dl) with access to a Go module proxy and run \`npm run tools\`, ` +
      `or put k6 >= ${K6_VERSION} < ${nextMajor()} on PATH (https://grafana.com/docs/k6/latest/set-up/install-k6/).`,
  );
}

async function tryGo(
  env: NodeJS.ProcessEnv,
  toolsDir: string,
  progress: Progress,
  reasons: string[],
  signal: AbortSignal | undefined,
): Promise<{ binPath: string; workDir: string } | undefined> {
  const goPath = await findOnPath('go', env);
  if (!goPath) {
    reasons.push('no go on PATH to build k6 from source');
    return undefined;
  }
  const goVersion = (await execa(goPath, ['version'], { env, extendEnv: false, reject: false })).stdout;
  if (!isGoVersionFit(goVersion)) {
    reasons.push(`${goPath} is "${goVersion}", k6 v${K6_VERSION} needs Go >= ${K6_MIN_GO}`);
    return undefined;
  }
  progress.update(`building k6 v${K6_VERSION} with ${goPath} (${goVersion}); this takes a few minutes`);
  const built = await buildK6WithGo({
    goPath,
    scratchParent: toolsDir,
    env,
    progress,
    ...(signal ? { signal } : {}),
  });
  progress.finish('build finished');
  return built;
}

/** Checks the new binary, then moves it into place with one rename (never a half-written k6). */
async function install(
  binPath: string,
  workDir: string,
  pinned: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  try {
    await chmod(binPath, 0o755);
    const version = await probeK6Version(binPath, env);
    if (version !== K6_VERSION) {
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `the new k6 reports ${version ? `v${version}` : 'no version'}, expected v${K6_VERSION}`,
      );
    }
    await mkdir(dirname(pinned), { recursive: true });
    await rename(binPath, pinned);
    return version;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function nextMajor(): string {
  return `${String(Number(K6_VERSION.split('.')[0]) + 1)}.0.0`;
}
