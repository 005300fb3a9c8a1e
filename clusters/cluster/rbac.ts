// The roles a run on an existing cluster needs, built from accessNeeds (the list the preflight
// reviews), so the guide's roles and `cluster check` cannot disagree: a ClusterRole for what is
// cluster-wide and for the run's own namespace (which does not exist before the run, so RBAC can
// only grant it in every namespace; the harness itself writes nowhere else: write-guard.ts); a Role
// in Istio's namespace for its reads (and in the gateway's, where that is another); a Role for E1's
// patch of the one DaemonSet named ztunnel. `npm run cluster -- rbac` prints them as YAML.
import type {
  KubernetesObject,
  V1ClusterRole,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
} from '@kubernetes/client-node';
import { accessNeeds } from './cluster-facts.ts';
import type { AccessNeed } from './cluster-facts.ts';
import { RUN_NAMESPACE_PREFIX } from './run-ownership.ts';

export const RUNNER_ROLE = 'ztunnel-harness-runner';
export const ISTIO_READ_ROLE = 'ztunnel-harness-istio-read';
export const ZTUNNEL_RESTART_ROLE = 'ztunnel-harness-ztunnel-restart';

export type RbacSubject =
  { kind: 'ServiceAccount'; namespace: string; name: string } | { kind: 'User'; name: string };

export interface RbacOptions {
  istioNamespace: string;
  gatewayNamespace: string;
  /** E1's Role too (the consented ztunnel restart). */
  withE1: boolean;
  /** Bound to this subject; without one, the roles only. */
  subject?: RbacSubject;
}

/** The rules for these needs, one per (group, resource, resourceNames), verbs merged in need order. */
function rulesOf(needs: readonly AccessNeed[]): V1PolicyRule[] {
  const rules = new Map<string, V1PolicyRule>();
  for (const n of needs) {
    const resource = n.subresource ? `${n.resource}/${n.subresource}` : n.resource;
    const key = `${n.group ?? ''} ${resource} ${n.name ?? ''}`;
    const rule = rules.get(key) ?? {
      apiGroups: [n.group ?? ''],
      resources: [resource],
      ...(n.name ? { resourceNames: [n.name] } : {}),
      verbs: [],
    };
    for (const v of n.verbs) if (!rule.verbs.includes(v)) rule.verbs.push(v);
    rules.set(key, rule);
  }
  return [...rules.values()];
}

const LABELS = { 'app.kubernetes.io/managed-by': 'ztunnel-harness' };

function binding(
  kind: 'ClusterRoleBinding' | 'RoleBinding',
  role: string,
  subject: RbacSubject,
  namespace?: string,
): V1RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name: role, ...(namespace ? { namespace } : {}), labels: LABELS },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: kind === 'ClusterRoleBinding' ? 'ClusterRole' : 'Role',
      name: role,
    },
    subjects: [
      subject.kind === 'User'
        ? { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: subject.name }
        : { kind: 'ServiceAccount', namespace: subject.namespace, name: subject.name },
    ],
  };
}

/** The ClusterRole, the Roles and (with a subject) their bindings: exactly what accessNeeds lists. */
export function runnerRbac(options: RbacOptions): KubernetesObject[] {
  const { istioNamespace: istio, gatewayNamespace: gateway } = options;
  // Any run namespace name: what accessNeeds says of one holds for every one.
  const needs = accessNeeds(istio, `${RUN_NAMESPACE_PREFIX}x`, gateway);
  const everywhere = needs.filter(
    (n) => n.namespace === undefined || n.namespace.startsWith(RUN_NAMESPACE_PREFIX),
  );
  // A need the ClusterRole grants already (a run-namespace grant is one in every namespace) is not
  // repeated in a Role: each verb is granted once, so taking any away is seen.
  const granted = (n: AccessNeed) =>
    everywhere.some(
      (e) =>
        e.group === n.group &&
        e.resource === n.resource &&
        e.subresource === n.subresource &&
        (e.name === undefined || e.name === n.name) &&
        n.verbs.every((v) => e.verbs.includes(v)),
    );
  const inNamespace = (ns: string) => needs.filter((n) => n.namespace === ns && !n.onlyFor && !granted(n));
  const clusterRole: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: RUNNER_ROLE, labels: LABELS },
    rules: rulesOf(everywhere),
  };
  const role = (name: string, namespace: string, rules: V1PolicyRule[]): V1Role => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace, labels: LABELS },
    rules,
  });
  const namespaces = istio === gateway ? [istio] : [istio, gateway];
  const reads = namespaces.map((ns) => role(ISTIO_READ_ROLE, ns, rulesOf(inNamespace(ns))));
  const e1 = options.withE1
    ? [role(ZTUNNEL_RESTART_ROLE, istio, rulesOf(needs.filter((n) => n.onlyFor === 'E1')))]
    : [];
  const subject = options.subject;
  if (!subject) return [clusterRole, ...reads, ...e1];
  return [
    clusterRole,
    binding('ClusterRoleBinding', RUNNER_ROLE, subject),
    ...reads.flatMap((r) => [r, binding('RoleBinding', ISTIO_READ_ROLE, subject, r.metadata?.namespace)]),
    ...e1.flatMap((r) => [r, binding('RoleBinding', ZTUNNEL_RESTART_ROLE, subject, istio)]),
  ];
}
