// k6 -> gateway -> HBONE -> ztunnel -> httpbin (ambient, mesh-aware gateway) next to
// k6 -> gateway -> httpbin (mesh off, plain gateway), each on a fresh local cluster.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBackend } from '../../clusters/local/index.ts';
import { buildMeshManifests } from '../../clusters/manifests/index.ts';
import type { K6Binary } from '../tools/index.ts';
import { measureK6 } from './k6-row.ts';
import type { K6BenchRow } from './k6-row.ts';

export interface GatewayPathRows {
  path: string;
  rows: K6BenchRow[];
}

export async function benchGatewayPaths(options: {
  k6: K6Binary;
  connections: number[];
  durationS: number;
  signal: AbortSignal;
}): Promise<GatewayPathRows[]> {
  const paths = [
    {
      path: 'gateway -> HBONE -> ztunnel -> httpbin',
      mesh: 'ambient' as const,
      mode: 'hbone' as const,
      block: 190,
      // Then again on the same cluster with k6 writing no per-request records: the difference is
      // what collecting them costs at the highest rate we claim (design.md section 7).
      withoutRecords: true,
    },
    {
      path: 'gateway -> httpbin (mesh off)',
      mesh: 'off' as const,
      mode: 'plain' as const,
      block: 191,
      withoutRecords: false,
    },
  ];
  const out: GatewayPathRows[] = [];
  for (const p of paths) {
    const backend = createLocalBackend({ addressBlock: p.block });
    const workDir = await mkdtemp(join(tmpdir(), 'bench-gw-'));
    try {
      await backend.up();
      await backend.apply(
        buildMeshManifests({
          ztunnel: { graceS: 30 },
          httpbin: { replicas: 3, mesh: p.mesh },
          gateway: { mode: p.mode },
        }),
      );
      await backend.waitForReady({ timeoutMs: 30_000, signal: options.signal });
      const ingress = backend.addresses().ingress;
      if (!ingress) throw new Error('the gateway has no address');
      const url = `http://${ingress}/status/418`;
      out.push({ path: p.path, rows: await measureK6({ ...options, url, workDir }) });
      if (p.withoutRecords)
        out.push({
          path: 'same cluster, k6 records off',
          rows: await measureK6({ ...options, url, workDir, records: false }),
        });
    } finally {
      await backend.close();
      await rm(workDir, { recursive: true, force: true });
    }
  }
  return out;
}
