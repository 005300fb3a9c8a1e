// `npm run cluster -- rbac`: the roles a run needs on an existing cluster as YAML for kubectl apply,
// bound to a ServiceAccount or a user when one is named (rbac.ts builds them from accessNeeds).
import type { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { badInput, EXIT } from '../../lib/index.ts';
import { DNS_LABEL, parseGatewayRef, parseNamespaceName } from './cluster-flags.ts';
import { runnerRbac } from './rbac.ts';
import type { RbacSubject } from './rbac.ts';

export interface RbacFlags {
  istioNamespace: string;
  gateway: string;
  /** `<namespace>/<name>`. */
  serviceAccount?: string;
  user?: string;
  /** E1's Role (the ztunnel DaemonSet's restart); --no-e1 leaves it out. */
  e1: boolean;
}

const HEADER = `# The roles a ztunnel-harness run needs on this cluster (npm run cluster -- rbac), exactly what
# \`npm run cluster -- check\` reviews. The run's namespace is new each run, so RBAC can grant its
# writes only in every namespace (the ClusterRole); the harness writes nowhere but its own namespace
# and, with --allow-ztunnel-restart, the ztunnel DaemonSet (the last Role: leave it out with --no-e1).
`;

function subjectOf(flags: RbacFlags): RbacSubject | undefined {
  if (flags.serviceAccount !== undefined && flags.user !== undefined)
    throw badInput(
      '--service-account',
      'one subject: --service-account or --user',
      `${flags.serviceAccount} and --user ${flags.user}`,
    );
  if (flags.user !== undefined) {
    if (!flags.user.trim()) throw badInput('--user', 'a user name', flags.user);
    return { kind: 'User', name: flags.user };
  }
  if (flags.serviceAccount === undefined) return undefined;
  const [namespace = '', name = '', more] = flags.serviceAccount.split('/');
  if (!DNS_LABEL.test(name) || more !== undefined)
    throw badInput(
      '--service-account',
      '<namespace>/<name>',
      flags.serviceAccount,
      'e.g. --service-account ci/ztunnel-harness',
    );
  return { kind: 'ServiceAccount', namespace: parseNamespaceName(namespace), name };
}

export function printRbac(flags: RbacFlags, out: Writable): number {
  const subject = subjectOf(flags);
  const objects = runnerRbac({
    istioNamespace: parseNamespaceName(flags.istioNamespace),
    gatewayNamespace: parseGatewayRef(flags.gateway).namespace,
    withE1: flags.e1,
    ...(subject ? { subject } : {}),
  });
  out.write(HEADER + objects.map((o) => stringify(o, { singleQuote: true })).join('---\n'));
  return EXIT.pass;
}
