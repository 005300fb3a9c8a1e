// Where a result came from, so a row can be re-run and trusted: the command, the code (git sha and
// whether the work tree had changes), the tools (Node, the load generator, go-httpbin, this harness) and the machine, and any
// K6_* variable in the environment (k6 reads them, so they can change a run without a flag).
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../paths.ts';
import { GO_HTTPBIN } from '../provision/index.ts';

export const PROVENANCE_FILE = 'provenance.json';

export interface Provenance {
  argv: string[];
  cwd: string;
  /** sha in full; shortSha as `git rev-parse --short` gives it (the summary row's git_sha). */
  git: { sha: string; shortSha: string; dirty: boolean | 'unknown' };
  versions: { node: string; generator: string; envoy: string; httpbin: string; harness: string };
  machine: { cpuModel: string; cpus: number; memoryGiB: number; kernel: string; platform: string };
  k6Env: Record<string, string>;
}

async function gitState(): Promise<Provenance['git']> {
  const run = (args: string[]) => execa('git', args, { cwd: PROJECT_ROOT, reject: false });
  // One rev-parse for both forms: the full sha, then the short one.
  const [shas, status] = await Promise.all([
    run(['rev-parse', 'HEAD', '--short', 'HEAD']),
    run(['status', '--porcelain']),
  ]);
  const [sha, shortSha] = shas.stdout.trim().split('\n');
  if (shas.exitCode !== 0 || !sha || !shortSha)
    return { sha: 'unknown (not a git checkout)', shortSha: 'unknown', dirty: 'unknown' };
  return { sha, shortSha, dirty: status.exitCode === 0 ? status.stdout.trim() !== '' : 'unknown' };
}

export async function collectProvenance(options: {
  /** The load generator that runs: `fortio 1.66.0`, `k6 2.2.0`. */
  generator: string;
  /** The gateway's and the sidecar's proxy: `envoy 1.40.0`. */
  envoy: string;
  env?: NodeJS.ProcessEnv;
  argv?: string[];
}): Promise<Provenance> {
  const env = options.env ?? process.env;
  const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return {
    argv: options.argv ?? process.argv.slice(1),
    cwd: process.cwd(),
    git: await gitState(),
    versions: {
      node: process.version,
      generator: options.generator,
      envoy: options.envoy,
      httpbin: `go-httpbin ${GO_HTTPBIN.version}`,
      harness: pkg.version ?? 'unknown',
    },
    machine: {
      cpuModel: cpus()[0]?.model ?? 'unknown',
      cpus: availableParallelism(),
      memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      kernel: release(),
      platform: `${process.platform}/${process.arch}`,
    },
    k6Env: Object.fromEntries(
      Object.entries(env).flatMap(([k, v]) => (k.startsWith('K6_') && v !== undefined ? [[k, v]] : [])),
    ),
  };
}

export async function writeProvenance(runDir: string, provenance: Provenance): Promise<void> {
  await writeFile(join(runDir, PROVENANCE_FILE), `${JSON.stringify(provenance, null, 2)}\n`);
}
