// Kubernetes' RBAC authorizer, enough for the tests: a request's attributes (as the API server's
// request-info resolver reads a path and method) matched against ClusterRoles bound cluster-wide and
// Roles bound in their namespace (k8s.io/apiserver pkg/endpoints/request/requestinfo.go;
// plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows).
import type { KubernetesObject, V1PolicyRule } from '@kubernetes/client-node';

export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** A request's attributes, or undefined for what RBAC roles need not grant (discovery, reviews). */
export function attributesOf(
  method: string,
  path: string,
  query: Record<string, string>,
): Attributes | undefined {
  if (path === '/version' || path === '/api' || path === '/apis' || path.endsWith('accessreviews'))
    return undefined;
  const parts = path.split('/').filter(Boolean);
  // /api/v1/... or /apis/<group>/<version>/...
  const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest.length === 0) return undefined; // a group's discovery
  const group = parts[0] === 'api' ? '' : (parts[1] ?? '');
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1] ?? '';
    rest.splice(0, 2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  // A namespace itself: /api/v1/namespaces/<name> (its name is the object's, not a scope).
  if (resource === '' && namespace)
    return verbOf(method, query, {
      group,
      resource: 'namespaces',
      subresource: '',
      namespace: '',
      name: namespace,
    });
  return verbOf(method, query, { group, resource, subresource, namespace, name });
}

function verbOf(method: string, query: Record<string, string>, a: Omit<Attributes, 'verb'>): Attributes {
  const verb =
    method === 'GET'
      ? a.name
        ? 'get'
        : query['watch'] === 'true'
          ? 'watch'
          : 'list'
      : (({ POST: 'create', PATCH: 'patch', PUT: 'update', DELETE: 'delete' } as Record<string, string>)[
          method
        ] ?? method);
  return { verb, ...a };
}

const ruleAllows = (rule: V1PolicyRule, a: Attributes): boolean => {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    (rule.apiGroups ?? []).includes(a.group) &&
    (rule.resources ?? []).includes(resource) &&
    rule.verbs.includes(a.verb) &&
    (!rule.resourceNames?.length || rule.resourceNames.includes(a.name))
  );
};

/** Whether the subject these objects bind (their only one) may do `a`. */
export function allows(objects: readonly KubernetesObject[], a: Attributes): boolean {
  const rules = (o: KubernetesObject) => (o as { rules?: V1PolicyRule[] }).rules ?? [];
  return objects.some(
    (o) =>
      (o.kind === 'ClusterRole' || (o.kind === 'Role' && o.metadata?.namespace === a.namespace)) &&
      rules(o).some((r) => ruleAllows(r, a)),
  );
}
