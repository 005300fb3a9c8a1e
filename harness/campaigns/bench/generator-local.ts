import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTarget } from '../../run/checks/local-target.ts';
import type { LoadGenerator } from '../../provision/index.ts';
import { measureLoad } from './load-row.ts';
import type { LoadBenchRow } from './load-row.ts';

/** The load generator at qps 0 against a local Node HTTP target, through the harness's whole load path. */
export async function benchGeneratorLocal(options: {
  generator: LoadGenerator;
  connections: number[];
  durationS: number;
  signal: AbortSignal;
}): Promise<LoadBenchRow[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'bench-load-'));
  const target = await startLocalTarget();
  try {
    return await measureLoad({ ...options, url: `${target.url}/status/418`, workDir });
  } finally {
    await target.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
