import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths.ts';
import { spawnNodeProcess } from '../../lib/test/node-process.ts';
import type { NodeProcess } from '../../lib/test/node-process.ts';

export interface ZtunnelProcess extends NodeProcess {
  name: string;
}

/** A real ztunnel process (ztunnel/main.ts on this Node), its stdout lines collected. */
export function spawnZtunnel(name: string, env: Record<string, string>): ZtunnelProcess {
  return {
    name,
    ...spawnNodeProcess(join(PROJECT_ROOT, 'ztunnel', 'main.ts'), {
      ...env,
      INSTANCE: name,
      LOG_LEVEL: 'info',
    }),
  };
}
