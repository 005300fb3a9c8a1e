// `npm run cluster -- check`: the preflight of an existing cluster, as a command (issue 45). The
// kubeconfig and context are the user's; nothing is written to the cluster.
import type { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { badInput, EXIT } from '../../lib/index.ts';
import { clusterChecks, formatChecks, isReady } from './cluster-checks.ts';
import { parseGatewayRef, parseKubeconfigPath } from './cluster-flags.ts';
import { readClusterFacts } from './cluster-facts.ts';

export interface CheckFlags {
  kubeconfig?: string;
  context?: string;
  istioNamespace: string;
  gateway: string;
  allowZtunnelRestart: boolean;
}

/** The namespace a run would create (checked for the creates in it; never made here). */
export const RUN_NAMESPACE_EXAMPLE = 'ztunnel-harness-check';

/** The kubeconfig at its context, or bad input saying what is wrong (exit 2, nothing contacted). */
export function loadKubeConfig(flags: Pick<CheckFlags, 'kubeconfig' | 'context'>): KubeConfig {
  const kc = new KubeConfig();
  if (flags.kubeconfig !== undefined) {
    kc.loadFromFile(parseKubeconfigPath(flags.kubeconfig));
  } else kc.loadFromDefault();
  const contexts = kc.getContexts().map((c) => c.name);
  if (flags.context !== undefined) {
    if (!contexts.includes(flags.context))
      throw badInput(
        '--context',
        `a context of the kubeconfig (${contexts.join(', ') || 'it has none'})`,
        flags.context,
      );
    kc.setCurrentContext(flags.context);
  }
  if (!kc.getCurrentCluster())
    throw badInput(
      '--context',
      'a context naming a cluster',
      flags.context ?? kc.getCurrentContext(),
      'the kubeconfig has no current cluster: pass --kubeconfig and --context',
    );
  return kc;
}

/** Prints the facts and checks; exit 0 when the cluster has everything, 2 (with what to do) when not. */
export async function checkExistingCluster(flags: CheckFlags, out: Writable): Promise<number> {
  const gateway = parseGatewayRef(flags.gateway);
  const kc = loadKubeConfig(flags);
  const server = kc.getCurrentCluster()?.server ?? '';
  const facts = await readClusterFacts(kc, {
    istioNamespace: flags.istioNamespace,
    gateway,
    runNamespace: RUN_NAMESPACE_EXAMPLE,
  }).catch((err: unknown) => {
    throw badInput(
      '--context',
      'a cluster whose API server answers',
      kc.getCurrentContext(),
      `${server}: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  const checks = clusterChecks(facts);
  out.write(`${formatChecks(checks)}\n`);
  const ready = isReady(checks, flags.allowZtunnelRestart);
  out.write(
    ready
      ? `cluster ${facts.context}: has what the experiments need${flags.allowZtunnelRestart ? ', E1 included' : ' (E1 not asked: --allow-ztunnel-restart)'}\n`
      : `cluster ${facts.context}: missing what is marked above; nothing was changed\n`,
  );
  return ready ? EXIT.pass : EXIT.badInput;
}
