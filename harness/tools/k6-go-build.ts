import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Progress } from '../../lib/index.ts';
import { K6_MIN_GO, K6_MODULE, K6_VERSION } from './k6-version.ts';

/** `go build -v` printed about this many package lines for k6 v2.2.0 on an empty build cache. */
const K6_BUILD_PACKAGES_ESTIMATE = 780;

export interface GoBuildOptions {
  goPath: string;
  /** Scratch folder (inside the tools folder, so the final rename is on one filesystem). */
  scratchParent: string;
  env: NodeJS.ProcessEnv;
  progress: Progress;
  signal?: AbortSignal;
}

/**
 * Builds k6 from source in a throwaway module and returns the binary's path inside it.
 *
 * Why not `go install go.k6.io/k6/v2@v2.2.0`: `go install pkg@version` also asks the proxy for the
 * module's version list to look for a deprecation notice, and a proxy that serves the version but
 * not the list (ours answers 404 for go.k6.io/k6/v2's list) makes the whole install fail. `go get`
 * of an exact version into a module of our own, then `go build` of k6's main package, needs only the
 * version itself.
 */
export async function buildK6WithGo(options: GoBuildOptions): Promise<{ binPath: string; workDir: string }> {
  const workDir = await mkdtemp(join(options.scratchParent, '.build-k6-'));
  const binPath = join(workDir, process.platform === 'win32' ? 'k6.exe' : 'k6');
  const env = { ...options.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  try {
    await writeFile(join(workDir, 'go.mod'), `module k6build\n\ngo ${K6_MIN_GO}\n`);
    let downloads = 0;
    await runGo(options, workDir, env, ['get', `${K6_MODULE}@v${K6_VERSION}`], (line) => {
      if (line.startsWith('go: downloading ')) downloads++;
      options.progress.update(`go get ${K6_MODULE}@v${K6_VERSION}: ${String(downloads)} modules downloaded`);
    });
    let built = 0;
    const buildArgs = ['build', '-v', '-trimpath', '-o', binPath, K6_MODULE];
    await runGo(options, workDir, env, buildArgs, () => {
      built++;
      const detail = `go build k6 v${K6_VERSION}: ${String(built)} of about ${String(K6_BUILD_PACKAGES_ESTIMATE)} packages`;
      options.progress.update(detail, built, K6_BUILD_PACKAGES_ESTIMATE);
    });
    return { binPath, workDir };
  } catch (err) {
    await rm(workDir, { recursive: true, force: true });
    throw err;
  }
}

async function runGo(
  options: GoBuildOptions,
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  onLine: (line: string) => void,
): Promise<void> {
  const tail: string[] = [];
  const child = execa(options.goPath, args, {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdout: 'ignore',
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    forceKillAfterDelay: 3000,
  });
  for await (const line of child.iterable({ from: 'stderr' })) {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    onLine(line);
  }
  const result = await child;
  if (result.isCanceled) throw new HarnessError(ErrorCode.Aborted, `go ${args[0] ?? ''} was cancelled`);
  if (result.exitCode !== 0) {
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `\`go ${args.join(' ')}\` failed (exit ${String(result.exitCode)}):\n${tail.join('\n')}`,
    );
  }
}
