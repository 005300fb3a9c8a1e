// A test double of the Kubernetes API server, enough for client-node's typed APIs, informers
// (list, then watch from the list's resourceVersion) and KubernetesObjectApi (resource discovery):
// it stores objects, streams watch events, and records every request for the test to inspect.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string;
  body: unknown;
}

interface Meta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  generation?: number;
  [field: string]: unknown;
}
type Obj = { metadata?: Meta | undefined; [field: string]: unknown };

interface Collection {
  group: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Served only while this CustomResourceDefinition is stored (applied), as a CRD's resource is. */
  crd?: string;
}

/** Collection path (all namespaces) -> namespaced path segment and list kind. */
const COLLECTIONS: Record<string, Collection> = {
  pods: { group: '/api/v1', resource: 'pods', kind: 'Pod', namespaced: true },
  services: { group: '/api/v1', resource: 'services', kind: 'Service', namespaced: true },
  nodes: { group: '/api/v1', resource: 'nodes', kind: 'Node', namespaced: false },
  deployments: { group: '/apis/apps/v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  daemonsets: { group: '/apis/apps/v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  namespaces: { group: '/api/v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
  serviceaccounts: {
    group: '/api/v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
  },
  clusterroles: {
    group: '/apis/rbac.authorization.k8s.io/v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
  },
  clusterrolebindings: {
    group: '/apis/rbac.authorization.k8s.io/v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  configmaps: { group: '/api/v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  endpointslices: {
    group: '/apis/discovery.k8s.io/v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    namespaced: true,
  },
  customresourcedefinitions: {
    group: '/apis/apiextensions.k8s.io/v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  },
  gateways: {
    group: '/apis/networking.istio.io/v1',
    resource: 'gateways',
    kind: 'Gateway',
    namespaced: true,
    crd: 'gateways.networking.istio.io',
  },
  virtualservices: {
    group: '/apis/networking.istio.io/v1',
    resource: 'virtualservices',
    kind: 'VirtualService',
    namespaced: true,
    crd: 'virtualservices.networking.istio.io',
  },
};

export interface ApiServerDouble {
  url: string;
  requests: RecordedRequest[];
  /** Creates or replaces an object and tells every watcher (ADDED / MODIFIED). */
  put(resource: keyof typeof COLLECTIONS, object: Obj): void;
  remove(resource: keyof typeof COLLECTIONS, namespace: string, name: string): void;
  get(resource: keyof typeof COLLECTIONS, namespace: string, name: string): Obj | undefined;
  list(resource: keyof typeof COLLECTIONS): Obj[];
  /**
   * What `GET .../pods/<pod>/log?container=<c>[&previous=true]` answers (text/plain). A pod that is
   * not stored is 404; a previous instance never set is 400, as the API server answers for a
   * container that has not restarted; a current log never set is empty.
   */
  setLog(log: { namespace: string; pod: string; container: string; previous?: boolean }, text: string): void;
  /** Called after every change to the store (a controller double reconciles on it). */
  onChange(listener: (resource: string) => void): void;
  /** Resolves once at least `n` watches are open. */
  watching(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface ApiServerDoubleOptions {
  /**
   * Deployments and DaemonSets (`namespace/name`, or all) a stand-in controller rolls out at once
   * when applied or patched: status observes the new generation with every replica updated and Ready.
   */
  rollOutOnApply?: string[] | 'all';
  /** TokenReview (POST /apis/authentication.k8s.io/v1/tokenreviews): the status for a token. */
  reviewToken?: (token: string, audiences: string[]) => Record<string, unknown>;
  /**
   * SelfSubjectAccessReview (POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews): the status
   * for the attributes asked; allowed when unset.
   */
  accessReview?: (attributes: Record<string, string>) => { allowed: boolean; reason?: string };
  /** API groups served besides the built-in ones the double stores (GET /apis): a CRD's group. */
  extraApiGroups?: string[];
  /**
   * An applied CustomResourceDefinition reports Established (and NamesAccepted) at once, as the API
   * server's controllers do a moment after; false: never (a CRD the API server will not serve).
   */
  establishCrds?: boolean;
}

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

/** Whether an object's labels match a selector of `key=value` terms (all the double needs). */
function matchesSelector(object: Obj, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = (object.metadata?.['labels'] ?? {}) as Record<string, string>;
  return selector.split(',').every((term) => {
    const [k = '', v] = term.split('=');
    return labels[k] === v;
  });
}

export async function startApiServerDouble(options: ApiServerDoubleOptions = {}): Promise<ApiServerDouble> {
  const store = new Map<string, Map<string, Obj>>(Object.keys(COLLECTIONS).map((r) => [r, new Map()]));
  const watchers = new Map<string, Set<ServerResponse>>(Object.keys(COLLECTIONS).map((r) => [r, new Set()]));
  const requests: RecordedRequest[] = [];
  const podLogs = new Map<string, string>();
  const logKey = (ns: string, pod: string, container: string, previous: boolean): string =>
    `${ns}/${pod}/${container}${previous ? '/previous' : ''}`;
  let version = 1;
  let onWatch = (): void => undefined;
  const key = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;
  const changeListeners: ((resource: string) => void)[] = [];
  const notify = (resource: string, type: string, object: Obj): void => {
    for (const res of watchers.get(resource) ?? []) res.write(`${JSON.stringify({ type, object })}\n`);
    for (const listener of changeListeners) listener(resource);
  };
  const put = (resource: string, object: Obj): void => {
    const objects = store.get(resource);
    if (!objects) throw new Error(`unknown resource ${resource}`);
    const k = key(object.metadata?.namespace, object.metadata?.name);
    const existed = objects.has(k);
    version += 1;
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(version) } };
    objects.set(k, stored);
    notify(resource, existed ? 'MODIFIED' : 'ADDED', stored);
  };
  /** A CRD's resource is served while its CustomResourceDefinition is stored; the others always. */
  const isServed = (c: Collection): boolean =>
    c.crd === undefined || (store.get('customresourcedefinitions')?.has(key('', c.crd)) ?? false);
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const discovery = (group: string) => ({
    kind: 'APIResourceList',
    groupVersion: group.replace(/^\/apis?\//, ''),
    resources: Object.values(COLLECTIONS)
      .filter((c) => c.group === group && isServed(c))
      .map((c) => ({
        name: c.resource,
        kind: c.kind,
        namespaced: c.namespaced,
        verbs: ['get', 'list', 'watch', 'patch'],
      })),
  });

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const url = new URL(req.url ?? '/', 'http://double');
    const query = Object.fromEntries(url.searchParams);
    const contentType = req.headers['content-type'] ?? '';
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // Not JSON (a YAML apply body would be): kept as text for the test to see.
    }
    requests.push({ method: req.method ?? '', path: url.pathname, query, contentType, body });
    const path = url.pathname;
    if (path === '/version') {
      send(res, 200, { gitVersion: 'v1.35.0', major: '1', minor: '35' });
      return;
    }
    if (path === TOKEN_REVIEWS && req.method === 'POST') {
      const spec = (body as { spec?: { token?: string; audiences?: string[] } } | undefined)?.spec;
      const status = options.reviewToken?.(spec?.token ?? '', spec?.audiences ?? []) ?? {
        authenticated: false,
      };
      send(res, 201, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec, status });
      return;
    }
    if (path === ACCESS_REVIEWS && req.method === 'POST') {
      const spec = (body as { spec?: { resourceAttributes?: Record<string, string> } } | undefined)?.spec;
      const status = options.accessReview?.(spec?.resourceAttributes ?? {}) ?? { allowed: true };
      send(res, 201, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec,
        status,
      });
      return;
    }
    if (path === '/apis' && req.method === 'GET') {
      const groups = new Set([
        ...Object.values(COLLECTIONS)
          .filter(isServed)
          .map((c) => c.group)
          .filter((g) => g.startsWith('/apis/'))
          .map((g) => g.split('/')[2] ?? ''),
        ...(options.extraApiGroups ?? []),
      ]);
      send(res, 200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...groups].map((name) => ({
          name,
          versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
        })),
      });
      return;
    }
    const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
    if (log && req.method === 'GET') {
      answerLog(res, log[1] ?? '', log[2] ?? '', query);
      return;
    }
    if (Object.values(COLLECTIONS).some((c) => c.group === path && isServed(c))) {
      send(res, 200, discovery(path));
      return;
    }
    for (const [resource, c] of Object.entries(COLLECTIONS)) {
      if (!isServed(c)) continue;
      const created = c.namespaced
        ? new RegExp(`^${c.group}/namespaces/([^/]+)/${c.resource}$`).exec(path)
        : null;
      if (created && req.method === 'GET') {
        send(res, 200, {
          kind: `${c.kind}List`,
          apiVersion: c.group.replace(/^\/apis?\//, ''),
          metadata: { resourceVersion: String(version) },
          items: [...(store.get(resource)?.values() ?? [])].filter(
            (o) => o.metadata?.namespace === created[1] && matchesSelector(o, query['labelSelector']),
          ),
        });
        return;
      }
      if (created && req.method === 'POST') {
        const object = body as Obj;
        const ns = created[1] ?? '';
        if (store.get(resource)?.has(key(ns, object.metadata?.name))) {
          send(res, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists' });
          return;
        }
        put(resource, { ...object, metadata: { ...object.metadata, namespace: ns } });
        send(res, 201, store.get(resource)?.get(key(ns, object.metadata?.name)));
        return;
      }
      if (path === `${c.group}/${c.resource}`) {
        if (req.method === 'POST' && !c.namespaced) {
          const object = body as Obj;
          if (store.get(resource)?.has(key('', object.metadata?.name))) {
            send(res, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists' });
            return;
          }
          put(resource, object);
          send(res, 201, store.get(resource)?.get(key('', object.metadata?.name)));
          return;
        }
        if (query['watch'] === 'true') {
          res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
          res.flushHeaders();
          watchers.get(resource)?.add(res);
          res.on('close', () => watchers.get(resource)?.delete(res));
          onWatch();
          return;
        }
        send(res, 200, {
          kind: `${c.kind}List`,
          apiVersion: c.group.replace(/^\/apis?\//, ''),
          metadata: { resourceVersion: String(version) },
          items: [...(store.get(resource)?.values() ?? [])].filter((o) =>
            matchesSelector(o, query['labelSelector']),
          ),
        });
        return;
      }
      const m = c.namespaced
        ? new RegExp(`^${c.group}/namespaces/([^/]+)/${c.resource}/([^/]+)(/scale)?$`).exec(path)
        : new RegExp(`^${c.group}/${c.resource}/([^/]+)$`).exec(path);
      if (!m) continue;
      const [ns = '', name = '', scale] = c.namespaced ? m.slice(1) : [undefined, m[1]];
      const current = store.get(resource)?.get(key(ns, name));
      if (req.method === 'DELETE') {
        if (!current) {
          send(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
          return;
        }
        // The grace period asked for, else the pod's (30 s when it has none), as the API server does.
        const spec = (current as { spec?: { terminationGracePeriodSeconds?: number } }).spec;
        const graceS = Number(query['gracePeriodSeconds'] ?? spec?.terminationGracePeriodSeconds ?? 30);
        put(resource, {
          ...current,
          metadata: {
            ...current.metadata,
            deletionTimestamp: new Date(Date.now() + graceS * 1000).toISOString(),
            deletionGracePeriodSeconds: graceS,
          },
        });
        send(res, 200, current);
        return;
      }
      // A merge or strategic patch of what is not there is a 404, as the API server answers;
      // server-side apply creates it.
      if (req.method === 'PATCH' && !current && !contentType.startsWith('application/apply-patch')) {
        send(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
        return;
      }
      if (req.method === 'PATCH') {
        send(res, 200, applyPatch(resource, ns, name, current, contentType, body, Boolean(scale)));
        return;
      }
      if (req.method === 'PUT' && current) {
        put(resource, { ...(body as Obj), metadata: { ...(body as Obj).metadata, namespace: ns, name } });
        send(res, 200, store.get(resource)?.get(key(ns, name)));
        return;
      }
      if (req.method === 'GET' && current) {
        send(res, 200, current);
        return;
      }
      send(res, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
      return;
    }
    send(res, 404, {
      kind: 'Status',
      code: 404,
      message: `double: no route for ${req.method ?? ''} ${path}`,
    });
  };

  const answerLog = (res: ServerResponse, ns: string, pod: string, query: Record<string, string>): void => {
    const container = query['container'] ?? '';
    const previous = query['previous'] === 'true';
    if (!store.get('pods')?.has(key(ns, pod))) {
      send(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: `pods "${pod}" not found` });
      return;
    }
    const text = podLogs.get(logKey(ns, pod, container, previous));
    if (text === undefined && previous) {
      send(res, 400, {
        kind: 'Status',
        code: 400,
        reason: 'BadRequest',
        message: `previous terminated container "${container}" in pod "${pod}" not found`,
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(text ?? '');
  };

  /** SSA stores the body; strategic merge / merge patches merge it (enough for the patches we send). */
  const applyPatch = (
    resource: string,
    ns: string,
    name: string,
    current: Obj | undefined,
    contentType: string,
    body: unknown,
    isScale: boolean,
  ): unknown => {
    const patch = body as Obj;
    const base: Obj = contentType.startsWith('application/apply-patch') ? {} : structuredClone(current ?? {});
    const merged = deepMerge(base, patch) as Obj;
    if (isScale) {
      const replicas = (patch as { spec?: { replicas?: number } }).spec?.replicas;
      const next = deepMerge(structuredClone(current ?? {}), { spec: { replicas } }) as Obj;
      next.metadata = { ...next.metadata, generation: (current?.metadata?.generation ?? 0) + 1 };
      put(resource, next);
      return { kind: 'Scale', spec: { replicas } };
    }
    merged.metadata = {
      ...merged.metadata,
      name,
      namespace: ns,
      generation: (current?.metadata?.generation ?? 0) + 1,
    };
    const replicas = (merged as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    const rollOut = options.rollOutOnApply === 'all' || options.rollOutOnApply?.includes(`${ns}/${name}`);
    const observedGeneration = merged.metadata.generation;
    if (rollOut && resource === 'deployments')
      merged['status'] = {
        observedGeneration,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
      };
    if (resource === 'customresourcedefinitions' && options.establishCrds !== false)
      merged['status'] = {
        acceptedNames: (merged as { spec?: { names?: unknown } }).spec?.names,
        conditions: ['NamesAccepted', 'Established'].map((type) => ({ type, status: 'True' })),
      };
    if (rollOut && resource === 'daemonsets')
      merged['status'] = {
        observedGeneration,
        desiredNumberScheduled: 2,
        currentNumberScheduled: 2,
        updatedNumberScheduled: 2,
        numberReady: 2,
        numberAvailable: 2,
        numberMisscheduled: 0,
      };
    put(resource, merged);
    return merged;
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      handle(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    put,
    remove(resource, namespace, name) {
      const object = store.get(resource)?.get(key(namespace, name));
      if (!object) return;
      store.get(resource)?.delete(key(namespace, name));
      version += 1;
      notify(resource, 'DELETED', object);
    },
    get: (resource, namespace, name) => store.get(resource)?.get(key(namespace, name)),
    list: (resource) => [...(store.get(resource)?.values() ?? [])],
    setLog(log, text) {
      podLogs.set(logKey(log.namespace, log.pod, log.container, log.previous ?? false), text);
    },
    onChange(listener) {
      changeListeners.push(listener);
    },
    async watching(n) {
      const open = (): number => [...watchers.values()].reduce((s, w) => s + w.size, 0);
      while (open() < n) await new Promise<void>((resolve) => (onWatch = resolve));
    },
    async close() {
      for (const set of watchers.values()) for (const res of set) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

function deepMerge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = (target && typeof target === 'object' && !Array.isArray(target) ? target : {}) as Record<
    string,
    unknown
  >;
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) out[k] = deepMerge(out[k], v);
  return out;
}
