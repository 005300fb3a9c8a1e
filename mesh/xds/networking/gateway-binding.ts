import { resolveServerPort, selectsProxy } from './gateway.ts';
import type { GatewayConfig, GatewayServer } from './gateway.ts';
import { intersectHosts, serverHostsFor } from './hostname.ts';
import type { HttpMatch, HttpRouteConfig } from './http-route.ts';
import { compareByCreation } from './istio-object.ts';
import { isVisibleTo } from './virtual-service.ts';
import type { VirtualServiceConfig } from './virtual-service.ts';

/** The gateway proxy the routes are for. */
export interface GatewayProxy {
  namespace: string;
  /** Its pod's labels (Gateway selectors are matched against them). */
  labels: Readonly<Record<string, string>>;
  /** The ports of the Services selecting its pod (resolvePorts' service targets). */
  servicePorts: readonly { port: number; targetPort: number }[];
  /** The port its HTTP listener binds: a server counts when its port resolves to it. */
  listenerPort: number;
}

/** One route of a virtual host: an `http` entry with one of its matches (none: prefix `/`). */
export interface BoundRoute {
  route: HttpRouteConfig;
  match: HttpMatch | undefined;
  /** The server's port number: the destination's port when it names none and its Service has several. */
  serverPort: number;
  virtualService: { namespace: string; name: string };
}

/** One virtual host: util.DomainName(host, port) and the one domain, lower case. */
export interface VirtualHostPlan {
  name: string;
  domain: string;
  routes: BoundRoute[];
}

/** IsCatchAllRoute (route.go): prefix `/` (the only matches we serve carry no header guards). */
const isCatchAll = (m: HttpMatch | undefined): boolean => !m || ('prefix' in m.uri && m.uri.prefix === '/');

/**
 * BuildHTTPRoutesForVirtualService and TranslateRoute's guards (pilot/pkg/networking/core/route/
 * route.go): each entry's matches in order, a match limited to another port or gateway left out;
 * nothing after a catch-all.
 */
function routesOf(vs: VirtualServiceConfig, gateway: string, serverPort: number): BoundRoute[] {
  const out: BoundRoute[] = [];
  const bind = (route: HttpRouteConfig, match: HttpMatch | undefined): BoundRoute => ({
    route,
    match,
    serverPort,
    virtualService: { namespace: vs.namespace, name: vs.name },
  });
  for (const route of vs.http) {
    if (route.matches.length === 0) return [...out, bind(route, undefined)];
    for (const match of route.matches) {
      if (match.port !== undefined && match.port !== serverPort) continue;
      if (match.gateways.length && !match.gateways.includes(gateway)) continue;
      out.push(bind(route, match));
      if (isCatchAll(match)) return out;
    }
  }
  return out;
}

/**
 * VirtualServicesForGateway (push_context.go): those exported to the proxy's namespace from its own
 * namespace, then from others, then the public ones; each group oldest first.
 */
function virtualServicesFor(all: readonly VirtualServiceConfig[], gateway: string, proxyNamespace: string) {
  const bound = all.filter((vs) => vs.gateways.includes(gateway) && isVisibleTo(vs, proxyNamespace));
  const rank = (vs: VirtualServiceConfig): number =>
    vs.exportTo.includes('*') ? 2 : vs.namespace === proxyNamespace ? 0 : 1;
  return bound.sort((a, b) => rank(a) - rank(b) || compareByCreation(a, b));
}

/**
 * The virtual hosts istiod builds for a gateway's HTTP route (buildGatewayHTTPRouteConfig,
 * pilot/pkg/networking/core/gateway.go; mergeGateways, pilot/pkg/model/gateway.go): for each Gateway
 * selecting the proxy, each server on the listener's port, each VirtualService bound to that Gateway
 * and visible to the proxy, one virtual host per host the server and the VirtualService share;
 * a host already seen takes the later routes after its own. Catch-all routes last in each host
 * (SortVHostRoutes), hosts sorted by name (SortVirtualHosts).
 */
export function bindGatewayRoutes(
  proxy: GatewayProxy,
  gateways: readonly GatewayConfig[],
  virtualServices: readonly VirtualServiceConfig[],
): VirtualHostPlan[] {
  const hosts = new Map<string, VirtualHostPlan>();
  const cache = new Map<string, BoundRoute[]>();
  const selected = gateways.filter((g) => selectsProxy(g, proxy.labels)).sort(compareByCreation);
  for (const gateway of selected) {
    const name = `${gateway.namespace}/${gateway.name}`;
    const servers = gateway.servers.filter(
      (s: GatewayServer) => resolveServerPort(s.port, proxy.servicePorts) === proxy.listenerPort,
    );
    for (const server of servers)
      for (const vs of virtualServicesFor(virtualServices, name, proxy.namespace)) {
        const shared = intersectHosts(serverHostsFor(server.hosts, vs.namespace), vs.hosts);
        if (shared.length === 0) continue;
        const key = `${name}\u0000${vs.namespace}/${vs.name}`;
        const routes = cache.get(key) ?? routesOf(vs, name, server.port);
        cache.set(key, routes);
        if (routes.length === 0) continue;
        for (const host of shared.map((h) => h.toLowerCase())) {
          const known = hosts.get(host);
          if (known) known.routes.push(...routes);
          else hosts.set(host, { name: `${host}:${String(server.port)}`, domain: host, routes: [...routes] });
        }
      }
  }
  return [...hosts.values()]
    .map((h) => ({
      ...h,
      routes: [
        ...h.routes.filter((r) => !isCatchAll(r.match)),
        ...h.routes.filter((r) => isCatchAll(r.match)),
      ],
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
