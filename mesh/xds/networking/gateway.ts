import { isFields, isPortNumber, otherKeys, stringList, stringMap } from './istio-object.ts';
import type { Fields, IstioObject, Parsed } from './istio-object.ts';

/** One plain-HTTP server of a Gateway: the port it names and the hosts it admits. */
export interface GatewayServer {
  /** server.port.number: a port of the gateway's Service (or of the pod when none has it). */
  port: number;
  /** As sanitizeServerHostNamespace leaves them: `host`, `*`, or `ns/host`. */
  hosts: string[];
}

/** A networking.istio.io/v1 Gateway as the gateway proxy's config uses it. */
export interface GatewayConfig {
  namespace: string;
  name: string;
  creationTimestamp?: string;
  /** Labels the gateway pod must carry; undefined: every gateway proxy (istiod's nil selector). */
  selector: Record<string, string> | undefined;
  servers: GatewayServer[];
}

/** protocol.Parse(...).IsHTTP() (pkg/config/protocol/instance.go): case-insensitive. */
const HTTP_PROTOCOLS = ['http', 'http2', 'http_proxy', 'grpc', 'grpc-web'];

/**
 * sanitizeServerHostNamespace (pilot/pkg/model/gateway.go): `./host` is the Gateway's namespace,
 * `*\/host` any namespace (plain `host`), and `*\/*` alone stands for every host.
 */
function sanitizeHosts(hosts: string[], namespace: string): string[] {
  const out: string[] = [];
  for (const h of hosts) {
    const slash = h.indexOf('/');
    if (slash < 0) out.push(h);
    else if (h.startsWith('./')) out.push(`${namespace}/${h.slice(2)}`);
    else if (h === '*/*') return ['*'];
    else if (h.startsWith('*/')) out.push(h.slice(2));
    else out.push(h);
  }
  return out;
}

/** One server, or why it is not served (only plain HTTP on a port is). */
function parseServer(raw: unknown, namespace: string): GatewayServer | string {
  if (!isFields(raw)) return 'not an object';
  const port = isFields(raw['port']) ? raw['port'] : undefined;
  if (!port || !isPortNumber(port['number'])) return 'no port.number';
  const protocol = typeof port['protocol'] === 'string' ? port['protocol'] : '';
  const at = `port ${String(port['number'])} ${protocol}`;
  if (!HTTP_PROTOCOLS.includes(protocol.toLowerCase()))
    return `${at}: protocol ${JSON.stringify(protocol)} (only plain HTTP servers are served)`;
  const unsupported = otherKeys(raw, ['port', 'hosts', 'name']);
  if (unsupported.length) return `${at}: unsupported ${unsupported.join(', ')}`;
  const hosts = stringList(raw['hosts']);
  if (!hosts?.length) return `${at}: no hosts`;
  return { port: port['number'], hosts: sanitizeHosts(hosts, namespace) };
}

/**
 * A Gateway's selector and its plain-HTTP servers (mergeGateways, pilot/pkg/model/gateway.go, and
 * the networking/v1 Gateway type). A server with TLS, another protocol, `bind` or `defaultEndpoint`
 * is left out with a problem naming it; a Gateway with a malformed spec is left out whole.
 */
export function parseGateway(object: IstioObject): Parsed<GatewayConfig> {
  const what = `Gateway ${object.namespace}/${object.name}`;
  const spec: Fields | undefined = isFields(object.spec) ? object.spec : undefined;
  if (!spec) return { problems: [`${what}: no spec; skipped`] };
  const selector =
    spec['selector'] === undefined || spec['selector'] === null ? {} : stringMap(spec['selector']);
  if (!selector) return { problems: [`${what}: selector is not a map of strings; skipped`] };
  const servers: GatewayServer[] = [];
  const problems: string[] = [];
  const rawServers: unknown[] = Array.isArray(spec['servers']) ? spec['servers'] : [];
  for (const [i, raw] of rawServers.entries()) {
    const server = parseServer(raw, object.namespace);
    if (typeof server === 'string') problems.push(`${what} servers[${String(i)}]: ${server}; skipped`);
    else servers.push(server);
  }
  return {
    config: {
      namespace: object.namespace,
      name: object.name,
      ...(object.creationTimestamp ? { creationTimestamp: object.creationTimestamp } : {}),
      selector: Object.keys(selector).length ? selector : undefined,
      servers,
    },
    problems,
  };
}

/** mergeGateways' selection (pilot/pkg/model/push_context.go): no selector, or a subset of the labels. */
export const selectsProxy = (gateway: GatewayConfig, labels: Readonly<Record<string, string>>): boolean =>
  Object.entries(gateway.selector ?? {}).every(([k, v]) => labels[k] === v);

/**
 * resolvePorts with a label selector (pilot/pkg/model/gateway.go): the server's port number is a port
 * of a Service selecting the gateway pod, listened on at its targetPort (the first match); with no
 * such Service, the number itself.
 */
export function resolveServerPort(
  port: number,
  servicePorts: readonly { port: number; targetPort: number }[],
): number {
  return servicePorts.find((p) => p.port === port)?.targetPort ?? port;
}
