// Local cluster bring-up: up() -> every pod Ready (2 nodes, control plane, ztunnels, 3 httpbin).
import { createLocalBackend } from '../../../clusters/local/index.ts';
import { buildMeshManifests } from '../../../clusters/manifests/index.ts';
import { createSystemClock } from '../../../lib/index.ts';

export interface ClusterUpResult {
  upMs: number;
  readyMs: number;
  pods: number;
}

export async function benchClusterUp(options: {
  repeats: number;
  addressBlock: number;
}): Promise<ClusterUpResult[]> {
  const results: ClusterUpResult[] = [];
  for (let i = 0; i < options.repeats; i++) {
    const clock = createSystemClock();
    const backend = createLocalBackend({ clock, addressBlock: options.addressBlock + i });
    try {
      const startMs = clock.now();
      await backend.up();
      const upMs = clock.now() - startMs;
      await backend.apply(
        buildMeshManifests({
          ztunnel: { graceS: 30 },
          httpbin: { replicas: 3, mesh: 'ambient' },
          gateway: { mode: 'hbone' },
        }),
      );
      await backend.waitForReady({ timeoutMs: 30_000 });
      results.push({ upMs, readyMs: clock.now() - startMs, pods: backend.addresses().pods.length });
    } finally {
      await backend.close();
    }
  }
  return results;
}
