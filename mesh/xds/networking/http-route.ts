import { checkRetryOn } from '../route-policy.ts';
import { parseGoDuration } from './go-duration.ts';
import { resolveGatewayName, resolveShortname } from './hostname.ts';
import { isFields, isPortNumber, otherKeys, stringList } from './istio-object.ts';

/** One HTTPMatchRequest we serve: a URI prefix or exact path, with its guards. */
export interface HttpMatch {
  name?: string;
  /** uri.prefix / uri.exact; no uri: prefix `/`. */
  uri: { prefix: string } | { exact: string };
  ignoreUriCase: boolean;
  /** The gateway port (the server's number) it is limited to. */
  port?: number;
  /** Gateways (`ns/name`) it is limited to. */
  gateways: string[];
}

/** VirtualService `retries` (networking/v1 HTTPRetry): what retry.ConvertPolicy reads of it. */
export interface HttpRetries {
  /** 0 (also when unset) disables retries. */
  attempts: number;
  /** Empty: Istio's default conditions. */
  retryOn: string;
  perTryTimeoutMs?: number;
}

/** One `http` entry we serve: matches (none: every request), one destination, retries, timeout. */
export interface HttpRouteConfig {
  name?: string;
  matches: HttpMatch[];
  /** The Service host resolved to its FQDN, and the port when named. */
  destination: { host: string; port?: number };
  /** Unset: the mesh's default retry policy. */
  retries?: HttpRetries;
  timeoutMs?: number;
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null;

const ROUTE_KEYS = ['name', 'match', 'route', 'retries', 'timeout'];
const MATCH_KEYS = ['name', 'uri', 'ignoreUriCase', 'port', 'gateways'];
const RETRY_KEYS = ['attempts', 'retryOn', 'perTryTimeout'];

function parseMatch(raw: unknown, namespace: string, unsupported: string[]): HttpMatch | undefined {
  if (!isFields(raw)) return void unsupported.push('a match that is not an object');
  unsupported.push(...otherKeys(raw, MATCH_KEYS).map((k) => `match.${k}`));
  const uri = isFields(raw['uri']) ? raw['uri'] : {};
  if (!isAbsent(raw['uri']) && !isFields(raw['uri'])) unsupported.push('match.uri (not an object)');
  unsupported.push(...otherKeys(uri, ['prefix', 'exact']).map((k) => `match.uri.${k}`));
  const prefix = uri['prefix'];
  const exact = uri['exact'];
  const port = raw['port'];
  const gateways = stringList(raw['gateways']);
  if (!isAbsent(port) && port !== 0 && !isPortNumber(port)) unsupported.push('match.port (not a port)');
  if (!gateways) unsupported.push('match.gateways (not a list of names)');
  return {
    ...(typeof raw['name'] === 'string' && raw['name'] ? { name: raw['name'] } : {}),
    uri:
      typeof exact === 'string' ? { exact } : { prefix: typeof prefix === 'string' && prefix ? prefix : '/' },
    ignoreUriCase: raw['ignoreUriCase'] === true,
    ...(isPortNumber(port) ? { port } : {}),
    gateways: (gateways ?? []).map((g) => resolveGatewayName(g, namespace)),
  };
}

function parseDestination(route: unknown, unsupported: string[]): HttpRouteConfig['destination'] | undefined {
  if (!Array.isArray(route) || route.length === 0) return void unsupported.push('no route destination');
  if (route.length > 1)
    return void unsupported.push(`several weighted destinations (${String(route.length)})`);
  const only: unknown = route[0];
  if (!isFields(only) || !isFields(only['destination']))
    return void unsupported.push('route without destination');
  unsupported.push(...otherKeys(only, ['destination', 'weight']).map((k) => `route.${k}`));
  const d = only['destination'];
  unsupported.push(...otherKeys(d, ['host', 'port']).map((k) => `destination.${k}`));
  const port = isFields(d['port']) ? d['port']['number'] : undefined;
  if (typeof d['host'] !== 'string' || d['host'] === '')
    return void unsupported.push('destination without host');
  if (port !== undefined && !isPortNumber(port)) return void unsupported.push('destination.port.number');
  return { host: d['host'], ...(port === undefined ? {} : { port }) };
}

function parseRetries(raw: unknown, unsupported: string[]): HttpRetries | undefined {
  if (!isFields(raw)) return void unsupported.push('retries (not an object)');
  unsupported.push(...otherKeys(raw, RETRY_KEYS).map((k) => `retries.${k}`));
  const attempts = raw['attempts'] ?? 0;
  const retryOn = raw['retryOn'] ?? '';
  const perTry = raw['perTryTimeout'];
  const perTryTimeoutMs = typeof perTry === 'string' ? parseGoDuration(perTry) : undefined;
  if (typeof attempts !== 'number' || !Number.isInteger(attempts)) unsupported.push('retries.attempts');
  if (!isAbsent(perTry) && perTryTimeoutMs === undefined) unsupported.push('retries.perTryTimeout');
  if (typeof retryOn !== 'string') unsupported.push('retries.retryOn');
  else
    try {
      checkRetryOn(retryOn);
    } catch (err) {
      unsupported.push(`retries.retryOn: ${(err as Error).message}`);
    }
  return {
    attempts: typeof attempts === 'number' ? Math.max(0, attempts) : 0,
    retryOn: typeof retryOn === 'string' ? retryOn : '',
    ...(perTryTimeoutMs === undefined ? {} : { perTryTimeoutMs }),
  };
}

/**
 * One VirtualService `http` entry, in the VirtualService's namespace (short destination hosts and
 * gateway names resolved as ResolveVirtualServiceShortnames does, pilot/pkg/model/virtualservice.go),
 * or what in it this control plane does not translate (redirect, rewrite, mirrors, header matches,
 * weighted destinations, ...): istiod would translate those, so the caller skips the whole entry and
 * logs the list rather than serve a route that means something else.
 */
export function parseHttpRoute(raw: unknown, namespace: string): HttpRouteConfig | string[] {
  if (!isFields(raw)) return ['not an object'];
  const unsupported = otherKeys(raw, ROUTE_KEYS);
  const rawMatches: unknown = raw['match'] ?? [];
  const matches = Array.isArray(rawMatches)
    ? rawMatches.flatMap((m) => parseMatch(m, namespace, unsupported) ?? [])
    : (unsupported.push('match (not a list)'), []);
  const destination = parseDestination(raw['route'], unsupported);
  const retries = isAbsent(raw['retries']) ? undefined : parseRetries(raw['retries'], unsupported);
  const timeout = isAbsent(raw['timeout']) ? undefined : raw['timeout'];
  const timeoutMs = typeof timeout === 'string' ? parseGoDuration(timeout) : undefined;
  if (timeout !== undefined && timeoutMs === undefined)
    unsupported.push(`timeout ${JSON.stringify(timeout)}`);
  if (unsupported.length || !destination) return unsupported;
  return {
    ...(typeof raw['name'] === 'string' && raw['name'] ? { name: raw['name'] } : {}),
    matches,
    destination: { ...destination, host: resolveShortname(destination.host, namespace) },
    ...(retries ? { retries } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
