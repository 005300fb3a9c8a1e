import { resolveGatewayName, resolveShortname } from './hostname.ts';
import { parseHttpRoute } from './http-route.ts';
import type { HttpRouteConfig } from './http-route.ts';
import { isFields, otherKeys, stringList } from './istio-object.ts';
import type { IstioObject, Parsed } from './istio-object.ts';

/** A networking.istio.io/v1 VirtualService, as far as a gateway's HTTP routes use it. */
export interface VirtualServiceConfig {
  namespace: string;
  name: string;
  creationTimestamp?: string;
  /** Resolved to FQDNs where short (ResolveShortnameToFQDN). */
  hosts: string[];
  /** `ns/name`, or `mesh` (the default when none is named: the sidecars, not a gateway). */
  gateways: string[];
  /** Namespaces it is visible to: `*` (the default), `~` (none), or names (`.` resolved). */
  exportTo: string[];
  /** The `http` entries we serve, in their order; the others were left out with a problem. */
  http: HttpRouteConfig[];
}

const KEYS = ['hosts', 'gateways', 'http', 'exportTo', 'tcp', 'tls'];

/**
 * A VirtualService's hosts, gateways, visibility and HTTP routes, resolved in its namespace
 * (ResolveVirtualServiceShortnames, pilot/pkg/model/virtualservice.go; getGatewayNames and
 * initVirtualServices, push_context.go). tcp and tls routes are not served (a problem each); an
 * `http` entry we cannot translate is left out with a problem naming what it uses.
 */
export function parseVirtualService(object: IstioObject): Parsed<VirtualServiceConfig> {
  const { namespace, name } = object;
  const what = `VirtualService ${namespace}/${name}`;
  if (!isFields(object.spec)) return { problems: [`${what}: no spec; skipped`] };
  const spec = object.spec;
  const hosts = stringList(spec['hosts']);
  const gateways = stringList(spec['gateways']);
  const exportTo = stringList(spec['exportTo']);
  if (!hosts?.length) return { problems: [`${what}: no hosts; skipped`] };
  if (!gateways || !exportTo)
    return { problems: [`${what}: gateways or exportTo is not a list of names; skipped`] };
  const problems: string[] = [];
  const others = otherKeys(spec, KEYS);
  for (const key of ['tcp', 'tls'])
    if (Array.isArray(spec[key]) && spec[key].length) others.push(`${key} routes`);
  if (others.length) problems.push(`${what}: not served: ${others.join(', ')}`);
  const http: HttpRouteConfig[] = [];
  const rawHttp: unknown[] = Array.isArray(spec['http']) ? spec['http'] : [];
  for (const [i, raw] of rawHttp.entries()) {
    const route = parseHttpRoute(raw, namespace);
    if (Array.isArray(route))
      problems.push(`${what} http[${String(i)}]: skipped: unsupported ${route.join(', ')}`);
    else http.push(route);
  }
  return {
    config: {
      namespace,
      name,
      ...(object.creationTimestamp ? { creationTimestamp: object.creationTimestamp } : {}),
      hosts: hosts.map((h) => resolveShortname(h, namespace)),
      gateways: gateways.length ? gateways.map((g) => resolveGatewayName(g, namespace)) : ['mesh'],
      exportTo: exportTo.length ? exportTo.map((e) => (e === '.' ? namespace : e)) : ['*'],
      http,
    },
    problems,
  };
}

/**
 * Whether a proxy in `namespace` sees it (VirtualServicesForGateway over initVirtualServices'
 * indexes, push_context.go): exported to `*`, or to that namespace; `~` to none.
 */
export function isVisibleTo(vs: VirtualServiceConfig, namespace: string): boolean {
  if (vs.exportTo.includes('*')) return true;
  return !vs.exportTo.includes('~') && vs.exportTo.includes(namespace);
}
