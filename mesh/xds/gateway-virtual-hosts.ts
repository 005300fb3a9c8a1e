import type { DiscoverySnapshot, ServiceEntry } from '../discovery/index.ts';
import { clusterNameOf } from './destination-cluster.ts';
import type { Destination } from './destination-cluster.ts';
import { bindGatewayRoutes, serviceOfHost } from './networking/index.ts';
import type { BoundRoute, GatewayProxy, NetworkingSnapshot, VirtualHostPlan } from './networking/index.ts';
import type { ProxyNode } from './proxy-node.ts';
import { duration, struct } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';
import { retryPolicy } from './retry-policy.ts';
import { ISTIO_DEFAULT_ATTEMPTS, ISTIO_DEFAULT_RETRY_ON } from './route-policy.ts';

/**
 * GetDestinationCluster (route.go): the destination's port, else the only port of its Service, else
 * the server's port; the cluster exists only for a port the Service has (istiod builds clusters from
 * Services), so any other name answers 503 NC, as it would under istiod.
 */
function resolveDestination(
  b: BoundRoute,
  services: readonly ServiceEntry[],
): { cluster: string; port: number; destination?: Destination } {
  const { host, port: named } = b.route.destination;
  const ref = serviceOfHost(host);
  const service = ref && services.find((s) => s.namespace === ref.namespace && s.name === ref.name);
  const only = service?.ports.length === 1 ? service.ports[0]?.port : undefined;
  const port = named ?? only ?? b.serverPort;
  const served = ref && service?.ports.some((p) => p.port === port);
  return { cluster: clusterNameOf(host, port), port, ...(served ? { destination: { ...ref, port } } : {}) };
}

/** retry.ConvertPolicy (retry.go): unset is the mesh default (2 on Istio's conditions); attempts 0 none. */
function routeRetries(b: BoundRoute): ProtoObject | undefined {
  const r = b.route.retries;
  if (!r) return retryPolicy({ attempts: ISTIO_DEFAULT_ATTEMPTS, retryOn: ISTIO_DEFAULT_RETRY_ON });
  return retryPolicy({
    attempts: r.attempts,
    retryOn: r.retryOn || ISTIO_DEFAULT_RETRY_ON,
    ...(r.perTryTimeoutMs === undefined ? {} : { perTryTimeoutMs: r.perTryTimeoutMs }),
  });
}

/**
 * TranslateRoute (route.go): name `<http name>[.<match name>]`, TranslateRouteMatch's path (prefix or
 * exact, case sensitive unless ignoreUriCase), setTimeout (the VirtualService's, else none: 0), the
 * retry policy, the config's metadata (util.AddConfigInfoMetadata) and GetRouteOperation's decorator.
 */
function envoyRoute(b: BoundRoute, cluster: string, port: number): ProtoObject {
  const { route, match, virtualService: vs } = b;
  const name = `${route.name ?? ''}${match?.name ? `.${match.name}` : ''}`;
  const uri = match?.uri ?? { prefix: '/' };
  const path = 'exact' in uri ? { path: uri.exact } : { prefix: uri.prefix };
  const timeout = duration(route.timeoutMs ?? 0);
  const retry = routeRetries(b);
  return {
    ...(name ? { name } : {}),
    match: { ...path, case_sensitive: { value: !(match?.ignoreUriCase ?? false) } },
    route: { cluster, timeout, max_grpc_timeout: timeout, ...(retry ? { retry_policy: retry } : {}) },
    metadata: {
      filter_metadata: {
        istio: struct({
          config: `/apis/networking.istio.io/v1/namespaces/${vs.namespace}/virtual-service/${vs.name}`,
        }),
      },
    },
    decorator: {
      operation: `${route.destination.host}:${String(port)}${'exact' in uri ? uri.exact : `${uri.prefix}*`}`,
    },
  };
}

/**
 * The Envoy virtual hosts of a gateway's bound routes, and the destinations whose clusters they name
 * (each once).
 */
export function gatewayVirtualHosts(
  plans: readonly VirtualHostPlan[],
  services: readonly ServiceEntry[],
): { virtualHosts: ProtoObject[]; destinations: Destination[] } {
  const destinations = new Map<string, Destination>();
  const virtualHosts = plans.map((plan) => ({
    name: plan.name,
    domains: [plan.domain],
    routes: plan.routes.map((b) => {
      const { cluster, port, destination } = resolveDestination(b, services);
      if (destination) destinations.set(cluster, destination);
      return envoyRoute(b, cluster, port);
    }),
  }));
  return { virtualHosts, destinations: [...destinations.values()] };
}

/**
 * The gateway proxy as istiod's push context sees it (model.Proxy): its pod's labels, found by the
 * pod its node id names, and the ports of the Services backed by that pod (its ServiceTargets).
 */
export function gatewayProxyOf(
  node: ProxyNode,
  snapshot: DiscoverySnapshot,
  networking: NetworkingSnapshot,
  listenerPort: number,
): GatewayProxy {
  const self = snapshot.workloads.find((w) => w.namespace === node.namespace && w.name === node.podName);
  const servicePorts = snapshot.services
    .filter((s) => self?.services.includes(`${s.namespace}/${s.name}`))
    .flatMap((s) => s.ports);
  return {
    namespace: node.namespace,
    labels: networking.podLabels.get(`${node.namespace}/${node.podName}`) ?? {},
    servicePorts,
    listenerPort,
  };
}

/** The virtual hosts the Gateways and VirtualServices give this gateway proxy's listener. */
export function gatewayRoutesFor(
  node: ProxyNode,
  snapshot: DiscoverySnapshot,
  networking: NetworkingSnapshot,
  listenerPort: number,
): { virtualHosts: ProtoObject[]; destinations: Destination[] } {
  const proxy = gatewayProxyOf(node, snapshot, networking, listenerPort);
  const plans = bindGatewayRoutes(proxy, networking.gateways, networking.virtualServices);
  return gatewayVirtualHosts(plans, snapshot.services);
}
