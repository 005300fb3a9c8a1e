import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectory } from '../../../lib/index.ts';
import type { LocalCluster } from './local-cluster.ts';

/** The cluster's runtime folder, and where container logs go: the run's folder when given. */
export async function runFolderStep(cluster: LocalCluster): Promise<void> {
  const runDir = await mkdtemp(join(tmpdir(), 'ztunnel-harness-cluster-'));
  cluster.parts.runDir = runDir;
  const logDir = cluster.options.logDir ?? join(runDir, 'logs');
  await makeDirectory(logDir);
  cluster.parts.logDir = logDir;
}
