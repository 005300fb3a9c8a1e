/**
 * Istio's host names as istiod compares them for Gateway and VirtualService (pkg/config/host/name.go,
 * names.go; pilot/pkg/model/config.go): a wildcard is a leading `*`; short names resolve in the
 * config's namespace; a Kubernetes Service is `<name>.<namespace>.svc.cluster.local`.
 */

export const DOMAIN_SUFFIX = 'cluster.local';

const isWildcard = (h: string): boolean => h.startsWith('*');
const isIpAddress = (h: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(':');

/**
 * ResolveShortnameToFQDN (pilot/pkg/model/config.go): `*` and anything with a dot (or an IP) stay as
 * written; a short name becomes `<name>.<namespace>.svc.cluster.local`.
 */
export function resolveShortname(host: string, namespace: string): string {
  if (host === '' || host === '*' || host.includes('.') || isIpAddress(host)) return host;
  return `${host}.${namespace}.svc.${DOMAIN_SUFFIX}`;
}

/**
 * resolveGatewayName (pilot/pkg/model/config.go): `ns/name` as is, `./name` in the config's
 * namespace, a short name in the config's namespace, a legacy FQDN `name.ns.svc...` as `ns/name`.
 * `mesh` (the sidecars' pseudo gateway) is never resolved.
 */
export function resolveGatewayName(gateway: string, namespace: string): string {
  if (gateway === 'mesh') return gateway;
  const slash = gateway.indexOf('/');
  if (slash >= 0) return gateway.startsWith('./') ? `${namespace}/${gateway.slice(2)}` : gateway;
  const dot = gateway.indexOf('.');
  if (dot < 0) return `${namespace}/${gateway}`;
  const rest = gateway.slice(dot + 1);
  const next = rest.indexOf('.');
  return `${next < 0 ? rest : rest.slice(0, next)}/${gateway.slice(0, dot)}`;
}

/** Name.SubsetOf (pkg/config/host/name.go): every host `a` matches is matched by `b`. */
export function isHostSubsetOf(a: string, b: string): boolean {
  if (isWildcard(a)) return isWildcard(b) && a.length >= b.length && a.slice(1).endsWith(b.slice(1));
  if (isWildcard(b)) return a.endsWith(b.slice(1));
  return a === b;
}

/**
 * Names.Intersection (pkg/config/host/names.go): for each pair where one contains the other, the
 * narrower one, once. The Gateway's server hosts come first, as buildGatewayHTTPRouteConfig calls it.
 */
export function intersectHosts(serverHosts: readonly string[], vsHosts: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of serverHosts)
    for (const v of vsHosts) {
      const narrower = isHostSubsetOf(s, v) ? s : isHostSubsetOf(v, s) ? v : undefined;
      if (narrower !== undefined && !out.includes(narrower)) out.push(narrower);
    }
  return out;
}

/**
 * NamesForNamespace (pkg/config/host/names.go): a server's `ns/host` counts only for a
 * VirtualService in `ns` (or `*`), with the namespace stripped.
 */
export function serverHostsFor(hosts: readonly string[], namespace: string): string[] {
  return hosts.flatMap((h) => {
    const slash = h.indexOf('/');
    if (slash < 0) return [h];
    const ns = h.slice(0, slash);
    return ns === namespace || ns === '*' ? [h.slice(slash + 1)] : [];
  });
}

/** The Kubernetes Service a host names (`<name>.<namespace>.svc.cluster.local`), if it is one. */
export function serviceOfHost(host: string): { namespace: string; name: string } | undefined {
  const m = /^([^.]+)\.([^.]+)\.svc\.cluster\.local$/.exec(host);
  return m ? { name: m[1] ?? '', namespace: m[2] ?? '' } : undefined;
}
