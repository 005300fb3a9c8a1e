import { execa } from 'execa';
import { findOnPath, isExecutable } from '../../lib/install/index.ts';
import { isK6VersionFit, K6_BELOW_VERSION, K6_MIN_VERSION, parseK6VersionOutput } from './k6-version.ts';

export interface K6Found {
  path: string;
  version: string;
  /** Where it came from: K6_BINARY, or PATH. */
  source: 'K6_BINARY' | 'PATH';
}

/** The version a k6 binary reports, or undefined when it does not run or says something else. */
export async function probeK6Version(binPath: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const result = await execa(binPath, ['version'], { env, extendEnv: false, reject: false, timeout: 15_000 });
  if (result.exitCode !== 0) return undefined;
  return parseK6VersionOutput(result.stdout);
}

/**
 * A k6 the user installed: the one K6_BINARY names, else `k6` on PATH, when its version fits. Never
 * builds or downloads one. `reason` says why none was taken.
 */
export async function findK6(env: NodeJS.ProcessEnv = process.env): Promise<K6Found | { reason: string }> {
  const named = env['K6_BINARY'];
  const candidate = named ? ((await isExecutable(named)) ? named : undefined) : await findOnPath('k6', env);
  const where = named ? `K6_BINARY=${named}` : 'PATH';
  if (!candidate) return { reason: named ? `${where} is not an executable file` : 'no k6 on PATH' };
  const version = await probeK6Version(candidate, env);
  if (!version || !isK6VersionFit(version))
    return {
      reason: `${candidate} (${where}) reports ${version ? `v${version}` : 'no version'}, not >= ${K6_MIN_VERSION} < ${K6_BELOW_VERSION}`,
    };
  return { path: candidate, version, source: named ? 'K6_BINARY' : 'PATH' };
}
