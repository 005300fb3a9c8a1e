// `npm run cluster -- cleanup`: what runs left on an existing cluster (a harness killed before its
// close, a namespace still terminating). Candidates are found by the owner label, then each is
// judged by every mark of a run's namespace (run-ownership.ts): one that is not ours, or whose run
// is live (its lease ahead), is listed and kept. What is left is listed first and deleted only
// with --yes; --run names one run the user knows is over (deleted even before its lease lapses).
import type { Writable } from 'node:stream';
import { createSystemClock, ErrorCode, EXIT, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { loadKubeConfig } from './check-cluster.ts';
import { deleteOwnedNamespace, listOwnedNamespaces } from './owned-namespaces.ts';
import type { OwnedNamespace } from './owned-namespaces.ts';
import { OWNED_SELECTOR, ownershipOf } from './run-ownership.ts';

export interface CleanupFlags {
  kubeconfig?: string;
  context?: string;
  /** Delete what is listed as left (without it: list only). */
  yes?: boolean;
  /** List only (the default without --yes; kept for scripts that pass it). */
  dryRun?: boolean;
  /** Only this run's namespace, deleted even while its lease is ahead: the user says it is over. */
  run?: string;
  clock?: Clock;
}

type Verdict = { ns: OwnedNamespace; remove: boolean; why: string };

function judge(ns: OwnedNamespace, nowWallMs: number, named: string | undefined): Verdict {
  const o = ownershipOf(ns, nowWallMs);
  if (!o.ours) return { ns, remove: false, why: `kept: not a run's namespace (${o.why})` };
  const expiry = new Date(o.expiresAtMs).toISOString();
  if (o.isTerminating) return { ns, remove: true, why: 'left: terminating already' };
  if (named !== undefined) return { ns, remove: true, why: `left: named by --run (lease until ${expiry})` };
  if (o.live) return { ns, remove: false, why: `kept: its run is live (lease renewed until ${expiry})` };
  return { ns, remove: true, why: `left: its lease expired at ${expiry}` };
}

/** Lists every candidate with its verdict; with --yes deletes those left and waits until each is gone. */
export async function cleanupExistingCluster(flags: CleanupFlags, out: Writable): Promise<number> {
  const kc = loadKubeConfig(flags);
  const clock = flags.clock ?? createSystemClock();
  const found = await listOwnedNamespaces(kc, flags.run);
  if (flags.run !== undefined && found.length === 0)
    throw new HarnessError(
      ErrorCode.BadInput,
      `--run ${flags.run}: no namespace of that name with the label ${OWNED_SELECTOR} on context ${kc.getCurrentContext()}; run cleanup without --run to list what is there`,
    );
  const now = clock.now() + clock.wallOffsetMs;
  const verdicts = found.map((ns) => judge(ns, now, flags.run));
  const left = verdicts.filter((v) => v.remove);
  out.write(
    `context ${kc.getCurrentContext()}: ${String(found.length)} namespace(s) labelled ${OWNED_SELECTOR}, ${String(left.length)} left by a run that is over\n`,
  );
  for (const v of verdicts) out.write(`  ${v.ns.name} (created ${v.ns.createdAt}): ${v.why}\n`);
  if (left.length === 0) return EXIT.pass;
  if (!flags.yes || flags.dryRun) {
    out.write(`nothing deleted; pass --yes to delete the ${String(left.length)} left\n`);
    return EXIT.pass;
  }
  let stuck = 0;
  for (const { ns } of left) {
    const gone = await deleteOwnedNamespace(kc, { name: ns.name, clock, waitMs: 120_000 });
    out.write(`  ${ns.name}: ${gone ? 'deleted' : 'still terminating after 120 s'}\n`);
    if (!gone) stuck += 1;
  }
  return stuck === 0 ? EXIT.pass : EXIT.couldNotRun;
}
