import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTarget } from '../checks/local-target.ts';
import type { K6Binary } from '../tools/index.ts';
import { measureK6 } from './k6-row.ts';
import type { K6BenchRow } from './k6-row.ts';

/** k6 at qps 0 against a local Node HTTP target, through the harness's whole load path. */
export async function benchK6Local(options: {
  k6: K6Binary;
  connections: number[];
  durationS: number;
  signal: AbortSignal;
}): Promise<K6BenchRow[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'bench-k6-'));
  const target = await startLocalTarget();
  try {
    return await measureK6({ ...options, url: `${target.url}/status/418`, workDir });
  } finally {
    await target.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
