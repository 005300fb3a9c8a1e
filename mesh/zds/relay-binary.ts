// The zds-relay helper (mesh/zds/relay/main.go, ours, standard library only): built from this
// repository's source with the local Go toolchain into the tools folder, named by a hash of its
// source, so an edit builds a new one and nothing stale runs. No module is fetched.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { DEFAULT_TOOLS_DIR, ErrorCode, HarnessError, makeDirectory } from '../../lib/index.ts';
import { findOnPath, isExecutable } from '../../lib/install/index.ts';

export const ZDS_RELAY_SOURCE = join(import.meta.dirname, 'relay');
const SOURCE_FILES = ['go.mod', 'main.go'];

/** `.tools/zds-relay-<first 12 hex of sha256 over its source files>/zds-relay`. */
export function zdsRelayPath(toolsDir = DEFAULT_TOOLS_DIR): string {
  const hash = createHash('sha256');
  for (const file of SOURCE_FILES) hash.update(file).update(readFileSync(join(ZDS_RELAY_SOURCE, file)));
  return join(toolsDir, `zds-relay-${hash.digest('hex').slice(0, 12)}`, 'zds-relay');
}

/**
 * The helper's path, built first when this source has no binary yet (`go build`, a few seconds;
 * the Go standard library only, offline). A missing Go is a ToolMissing error saying what to do.
 */
export async function ensureZdsRelay(
  options: { toolsDir?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<string> {
  const target = zdsRelayPath(options.toolsDir);
  if (await isExecutable(target)) return target;
  const env = options.env ?? process.env;
  const go = await findOnPath('go', env);
  if (!go)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      'zds-relay (the ZDS helper that passes network namespaces to ztunnel) needs Go >= 1.22 on PATH to build; install Go and run again',
    );
  const dir = join(target, '..');
  await makeDirectory(dir);
  const scratch = await mkdtemp(join(dir, '.build-'));
  try {
    const built = await execa(go, ['build', '-trimpath', '-o', join(scratch, 'zds-relay'), '.'], {
      cwd: ZDS_RELAY_SOURCE,
      env: { ...env, GOTOOLCHAIN: 'local' },
      extendEnv: false,
      reject: false,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    if (built.exitCode !== 0)
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `go build of ${ZDS_RELAY_SOURCE} failed (exit ${String(built.exitCode)}): ${built.stderr.split('\n').slice(-5).join(' | ')}`,
      );
    await rename(join(scratch, 'zds-relay'), target);
    return target;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
