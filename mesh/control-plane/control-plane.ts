import type { Clock, Logger } from '../../lib/index.ts';
import type { DiscoverySnapshot, WorkloadEntry } from '../discovery/index.ts';
import { startDiscoveryServer } from '../discovery/index.ts';
import type { CertificateAuthority, RootMaterial, TokenCaller } from '../pki/index.ts';
import {
  createCertificateAuthority,
  createCertificateService,
  ISTIOD_HOSTNAMES,
  startCaServer,
} from '../pki/index.ts';
import {
  ADDRESS_TYPE_URL,
  addressResources,
  AUTHORIZATION_TYPE_URL,
  proxyResources,
  startAdsServer,
  startDeltaAdsServer,
} from '../xds/index.ts';
import type { XdsNack } from '../xds/index.ts';
import { buildDiscoverySnapshot } from './build-discovery.ts';
import { createNetworkingBuilder } from './build-networking.ts';
import type { ClusterSource } from './cluster-source.ts';
import { createDebouncer } from './debouncer.ts';
import { authorizeProxy } from './proxy-authorizer.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'control plane (istiod)');

/**
 * istiod's ports: 15010 plaintext xDS (workload discovery for our ztunnels), 15012 its CA over TLS
 * (JSON in place of gRPC, see ca-server; the gRPC form is on ZTUNNEL_XDS_PORT). Envoy's mTLS ADS,
 * which istiod serves on 15012 beside the CA, is on 15011 here (istiod's mTLS xDS port before 1.5).
 */
export const XDS_PORT = 15010;
export const ENVOY_XDS_PORT = 15011;
export const CA_PORT = 15012;
/**
 * Delta ADS and the gRPC CA for istio/ztunnel's binary (XDS_ADDRESS and CA_ADDRESS), which istiod
 * serves on 15012: one gRPC server, TLS without a client certificate, the caller named by its bearer
 * token. A port of its own here, next to Envoy's 15011 that requires mTLS and the HTTPS/JSON CA on
 * 15012.
 */
export const ZTUNNEL_XDS_PORT = 15013;

/** One completed push: which workloads it turned UNHEALTHY or removed, and who acknowledged it. */
export interface PushReport {
  atMs: number;
  version: string;
  becameUnhealthy: WorkloadEntry[];
  removed: WorkloadEntry[];
  subscribers: number;
  acked: number;
}

export interface ControlPlaneOptions {
  /** The mesh CA's root, when not a fresh one (istio/ztunnel's test root, for its FAKE_CA). */
  caRoot?: RootMaterial;
  source: ClusterSource;
  clock: Clock;
  log: Logger;
  host: string;
  debounceQuietMs: number;
  debounceMaxMs: number;
  /** Extra time each push takes before it reaches the wire (timing model). */
  pushLatencyMs: number;
  /**
   * Test only (planted regression late-removal): a push that removes or unreadies a workload waits
   * this much more before it goes out.
   */
  holdRemovalsMs?: number;
  onPush?: (report: PushReport) => void;
  /**
   * TokenReview for the CA: the caller a service-account token stands for, or why it is refused
   * (local: the local API server's tokens; kind: the Kubernetes TokenReview API).
   */
  authenticate(token: string): Promise<TokenCaller | string>;
  /** 0 picks free ports (tests); the cluster uses istiod's. */
  ports?: { xds: number; ca: number; envoyXds?: number; ztunnelXds?: number };
  /**
   * Where istio/ztunnel's delta ADS listens, when not on `host`: the local backend's network-world
   * address of the host, which a ztunnel in a network namespace of its own reaches (a 127.x address
   * is loopback, routed to no other namespace).
   */
  ztunnelXdsHost?: string;
  /** A proxy refused a configuration (a defect of ours: the run fails). */
  onNack?: (nack: XdsNack) => void;
}

export interface ControlPlane {
  /** host:port for XDS_ADDRESS. */
  xdsAddress: string;
  /** host:port of Envoy's mTLS ADS. */
  envoyXdsAddress: string;
  /**
   * host:port of istio/ztunnel's delta ADS and gRPC CA (TLS, bearer token): its XDS_ADDRESS and
   * CA_ADDRESS with https://.
   */
  ztunnelXdsAddress: string;
  /** Every NACK a proxy (Envoy or istio/ztunnel) sent, with its reason. */
  nacks(): readonly XdsNack[];
  /** URL for CA_ADDRESS (https). */
  caUrl: string;
  ca: CertificateAuthority;
  pushCount(): number;
  /** What the last completed push sent (the state every subscriber has ACKed or refused). */
  lastPushed(): DiscoverySnapshot;
  /** Resolves when no push is pending or in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function compare(
  before: DiscoverySnapshot,
  after: DiscoverySnapshot,
): Pick<PushReport, 'becameUnhealthy' | 'removed'> {
  const previous = new Map(before.workloads.map((w) => [w.uid, w]));
  const next = new Set(after.workloads.map((w) => w.uid));
  return {
    becameUnhealthy: after.workloads.filter(
      (w) => w.status === 'UNHEALTHY' && previous.get(w.uid)?.status === 'HEALTHY',
    ),
    removed: before.workloads.filter((w) => !next.has(w.uid)),
  };
}

/** What a push would send, as one comparable value. */
function derivedState(snapshot: DiscoverySnapshot, networking: unknown): string {
  return JSON.stringify([snapshot, networking]);
}

/**
 * The istiod-like control plane: watches the cluster source, debounces changes, pushes workload
 * discovery to every subscriber (ztunnels and gateways) and Envoy's config (the gateways' routes from
 * the Gateways and VirtualServices too), and hosts the mesh CA.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { clock, log } = options;
  const ca = await createCertificateAuthority(options.caRoot ? { root: options.caRoot } : {});
  const caServer = await startCaServer({
    ca,
    authenticate: (token) => options.authenticate(token),
    pods: () => options.source.pods(),
    onRefused: (status, reason) => {
      log.warn('certificate request refused', { status, reason });
    },
    host: options.host,
    port: options.ports?.ca ?? CA_PORT,
  });
  const discovery = await startDiscoveryServer({
    host: options.host,
    port: options.ports?.xds ?? XDS_PORT,
    clock,
    onSubscribe: (node, instance) => {
      log.debug('subscribed', { node, instance });
    },
  });
  let pushed: DiscoverySnapshot = { workloads: [], services: [] };
  // Gateways and VirtualServices, pushed with the snapshot: only Envoy's routes read them.
  const networkingOf = createNetworkingBuilder(options.source, log);
  let pushedNetworking = networkingOf();
  const ztunnelXdsHost = options.ztunnelXdsHost ?? options.host;
  const serving = await ca.issueServing({
    dns: ISTIOD_HOSTNAMES,
    ips: [...new Set([options.host, ztunnelXdsHost])],
  });
  const ads = await startAdsServer({
    host: options.host,
    port: options.ports
      ? (options.ports.envoyXds ?? (options.ports.xds === 0 ? 0 : ENVOY_XDS_PORT))
      : ENVOY_XDS_PORT,
    tls: { key: serving.keyPem, cert: serving.certPem, ca: ca.rootPem },
    authorize: (node, peer) => authorizeProxy(node, peer, () => options.source.pods()),
    // Each proxy's configuration from what the last push sent: Envoy sees changes when ztunnels do.
    configFor: (node) => proxyResources(node, pushed, pushedNetworking),
    onNack: (nack) => {
      log.error('proxy refused configuration (NACK)', { ...nack });
      options.onNack?.(nack);
    },
    onRefused: (node, reason) => {
      log.warn('xDS connection refused', { node, reason });
    },
  });
  const portFor = (given: number | undefined, fixed: number): number =>
    options.ports ? (given ?? (options.ports.xds === 0 ? 0 : fixed)) : fixed;
  // istio/ztunnel's discovery from the same pushed snapshot: every workload and service (istiod's
  // wildcard WDS), and no authorization policies (the harness applies none).
  const deltaAds = await startDeltaAdsServer({
    host: ztunnelXdsHost,
    port: portFor(options.ports?.ztunnelXds, ZTUNNEL_XDS_PORT),
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: async (token) => {
      const caller = await options.authenticate(token);
      return typeof caller === 'string' ? caller : { namespace: caller.namespace, podName: caller.podName };
    },
    resourcesFor: (_node, typeUrl) =>
      typeUrl === ADDRESS_TYPE_URL
        ? addressResources(pushed)
        : typeUrl === AUTHORIZATION_TYPE_URL
          ? new Map()
          : undefined,
    onNack: (nack) => {
      log.error('ztunnel refused discovery (NACK)', { ...nack });
      options.onNack?.(nack);
    },
    onRefused: (node, reason) => {
      log.warn('ztunnel xDS connection refused', { node, reason });
    },
    // istiod registers its CA on the discovery server (security/pkg/server/ca/server.go 187-190).
    services: [
      createCertificateService({
        ca,
        authenticate: (token) => options.authenticate(token),
        pods: () => options.source.pods(),
        onRefused: (code, reason) => {
          log.warn('certificate request refused (gRPC)', { code, reason });
        },
        onIssued: (identity, chainLength) => {
          log.debug('certificate issued (gRPC)', { identity, chainLength });
        },
      }),
    ],
  });
  let pushes = 0;
  const push = async (): Promise<void> => {
    // istiod builds the push from the state when the debounce fires; the latency is the time to
    // compute and deliver it. Changes arriving meanwhile wait for the next debounce window.
    const snapshot = buildDiscoverySnapshot(options.source);
    const networking = networkingOf();
    await clock.sleep(options.pushLatencyMs);
    const changes = compare(pushed, snapshot);
    if (options.holdRemovalsMs && changes.removed.length + changes.becameUnhealthy.length > 0)
      await clock.sleep(options.holdRemovalsMs);
    const result = await discovery.push(snapshot);
    const report: PushReport = { atMs: clock.now(), ...result, ...changes };
    pushed = snapshot;
    pushedNetworking = networking;
    ads.update();
    deltaAds.update();
    pushes++;
    log.debug('pushed', { version: result.version, acked: result.acked, subscribers: result.subscribers });
    options.onPush?.(report);
  };
  // The first snapshot is served to each subscriber on connect, without waiting for a debounce.
  pushed = buildDiscoverySnapshot(options.source);
  await discovery.push(pushed);
  const debouncer = createDebouncer({
    clock,
    quietMs: options.debounceQuietMs,
    maxMs: options.debounceMaxMs,
    push,
    onError: (err) => {
      log.error('push failed', { error: String(err) });
    },
  });
  // Only a change to what a push would send (re)starts the debounce: istiod's ambient index drops an
  // event whose derived object equals the one before (pkg/kube/krt/collection.go: "NOP change,
  // skip"), so a pod's status updates that change no workload (a new pod's conditions, a container's
  // restart count) never reach ConfigUpdate and its debouncer (pilot/pkg/xds/discovery.go).
  let derived = derivedState(pushed, pushedNetworking);
  const unsubscribe = options.source.onChange(() => {
    const now = derivedState(buildDiscoverySnapshot(options.source), networkingOf());
    if (now === derived) return;
    derived = now;
    debouncer.trigger();
  });
  return {
    xdsAddress: `${discovery.host}:${String(discovery.port)}`,
    envoyXdsAddress: ads.address,
    ztunnelXdsAddress: deltaAds.address,
    nacks: () => [...ads.nacks(), ...deltaAds.nacks()],
    caUrl: caServer.url,
    ca,
    pushCount: () => pushes,
    lastPushed: () => pushed,
    idle: () => debouncer.idle(),
    close: async () => {
      unsubscribe();
      debouncer.close();
      await Promise.all([discovery.close(), caServer.close(), ads.close(), deltaAds.close()]);
    },
  };
}
