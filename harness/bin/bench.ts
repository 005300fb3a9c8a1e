// `npm run bench`: figures, never a gate. Today: how fast k6 drives a local HTTP target through the
// harness's load path (bundled script, per-request records, reconciliation), and what the record
// collection costs per request.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSystemClock } from '../../lib/index.ts';
import { runMain } from '../cli/run-main.ts';
import { runLoad } from '../load/index.ts';
import { startLocalTarget } from '../scenarios/local-target.ts';
import { ensureK6 } from '../tools/index.ts';

const CASES = [
  { connections: 100, durationS: 5 },
  { connections: 1000, durationS: 5 },
];

runMain(async (signal) => {
  const k6 = await ensureK6({ signal, clock: createSystemClock() });
  const workRoot = await mkdtemp(join(tmpdir(), 'bench-'));
  const target = await startLocalTarget();
  try {
    process.stdout.write(
      `k6 v${k6.version} -> Node http target on ${target.url} (same machine, ${String(availableParallelism())} cores)\n`,
    );
    process.stdout.write(
      'case                      requests   req/s     p50 ms   p99 ms   dropped  record B/req\n',
    );
    for (const c of CASES) {
      const workDir = join(workRoot, `c${String(c.connections)}`);
      const result = await runLoad({
        k6,
        workDir,
        signal,
        spec: {
          targets: [`${target.url}/status/418`],
          qps: 0,
          connections: c.connections,
          durationS: c.durationS,
          timeoutS: 10,
        },
      });
      const { counts, summary } = result;
      const spanS = (counts.lastEndWallMs - counts.firstStartWallMs) / 1000;
      const bytes = (await stat(result.files.recordsPath)).size;
      process.stdout.write(
        `k6 qps=0 c=${String(c.connections)} ${String(c.durationS)}s`.padEnd(26) +
          `${String(counts.total).padStart(8)} ${(counts.total / spanS).toFixed(0).padStart(8)} ` +
          `${summary.durationMs.med.toFixed(2).padStart(8)} ${summary.durationMs.p99.toFixed(2).padStart(8)} ` +
          `${String(summary.droppedIterations).padStart(8)} ${(bytes / counts.total).toFixed(1).padStart(12)}\n`,
      );
    }
  } finally {
    await target.close();
    await rm(workRoot, { recursive: true, force: true });
  }
  return 0;
});
