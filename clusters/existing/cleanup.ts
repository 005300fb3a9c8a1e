// `npm run cluster -- cleanup`: what runs left on an existing cluster (a harness killed before its
// close, a namespace still terminating), found by the owner labels and deleted. Only namespaces
// labelled by the harness are touched; --dry-run lists them.
import type { Writable } from 'node:stream';
import { createSystemClock, EXIT } from '../../lib/index.ts';
import { loadKubeConfig } from './check-cluster.ts';
import { deleteOwnedNamespace, listOwnedNamespaces } from './owned-namespaces.ts';
import { OWNED_SELECTOR } from './run-objects.ts';

export interface CleanupFlags {
  kubeconfig?: string;
  context?: string;
  dryRun: boolean;
}

/** Lists the harness's namespaces, then (unless --dry-run) deletes each and waits until it is gone. */
export async function cleanupExistingCluster(flags: CleanupFlags, out: Writable): Promise<number> {
  const kc = loadKubeConfig(flags);
  const found = await listOwnedNamespaces(kc);
  out.write(
    `context ${kc.getCurrentContext()}: ${String(found.length)} namespace(s) labelled ${OWNED_SELECTOR}\n`,
  );
  for (const ns of found)
    out.write(`  ${ns.name} (created ${ns.createdAt}${ns.isTerminating ? ', terminating' : ''})\n`);
  if (flags.dryRun || found.length === 0) return EXIT.pass;
  const clock = createSystemClock();
  let left = 0;
  for (const ns of found) {
    const gone = await deleteOwnedNamespace(kc, { name: ns.name, clock, waitMs: 120_000 });
    out.write(`  ${ns.name}: ${gone ? 'deleted' : 'still terminating after 120 s'}\n`);
    if (!gone) left += 1;
  }
  return left === 0 ? EXIT.pass : EXIT.couldNotRun;
}
