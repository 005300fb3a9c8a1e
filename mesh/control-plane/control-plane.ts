import type { DiscoveryServer, DiscoverySnapshot } from '../discovery/index.ts';
import { startDiscoveryServer } from '../discovery/index.ts';
import type { CaServer, CertificateAuthority, GrpcService } from '../pki/index.ts';
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
import type { AdsServer, DeltaAdsServer, XdsNack } from '../xds/index.ts';
import { buildDiscoverySnapshot } from './build-discovery.ts';
import { createNetworkingBuilder } from './build-networking.ts';
import { createPushDebouncer, watchSource } from './discovery-push.ts';
import type { PushState, PushTargets } from './discovery-push.ts';
import { authorizeProxy } from './proxy-authorizer.ts';
import { nameComponent } from '../../lib/index.ts';
import type { ControlPlaneOptions } from './control-plane-options.ts';
export type { PushReport, ControlPlaneOptions } from './control-plane-options.ts';

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

/** What the control plane's parts share: what the last push sent, and the mesh CA. */
interface ControlPlaneState extends PushState {
  ca: CertificateAuthority;
}

/** istiod's serving certificate (ISTIOD_HOSTNAMES), for both ADS servers. */
interface ServingCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * The istiod-like control plane: watches the cluster source, debounces changes, pushes workload
 * discovery to every subscriber (ztunnels and gateways) and Envoy's config (the gateways' routes from
 * the Gateways and VirtualServices too), and hosts the mesh CA.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const ca = await createCertificateAuthority(options.caRoot ? { root: options.caRoot } : {});
  const caServer = await startMeshCaServer(options, ca);
  const discovery = await startWorkloadDiscovery(options);
  const networkingOf = createNetworkingBuilder(options.source, options.log);
  const state: ControlPlaneState = {
    options,
    ca,
    networkingOf,
    pushed: { workloads: [], services: [] },
    pushedNetworking: networkingOf(),
    pushes: 0,
  };
  const serving = await issueXdsServing(state);
  const targets: PushTargets = {
    discovery,
    ads: await startEnvoyAds(state, serving),
    deltaAds: await startZtunnelAds(state, serving),
  };
  // The first snapshot is served to each subscriber on connect, without waiting for a debounce.
  state.pushed = buildDiscoverySnapshot(options.source);
  await discovery.push(state.pushed);
  const debouncer = createPushDebouncer(state, targets);
  const unsubscribe = watchSource(state, debouncer);
  return {
    xdsAddress: `${discovery.host}:${String(discovery.port)}`,
    envoyXdsAddress: targets.ads.address,
    ztunnelXdsAddress: targets.deltaAds.address,
    nacks: () => [...targets.ads.nacks(), ...targets.deltaAds.nacks()],
    caUrl: caServer.url,
    ca,
    pushCount: () => state.pushes,
    lastPushed: () => state.pushed,
    idle: () => debouncer.idle(),
    close: async () => {
      unsubscribe();
      debouncer.close();
      await Promise.all([discovery.close(), caServer.close(), targets.ads.close(), targets.deltaAds.close()]);
    },
  };
}

/** The mesh CA over HTTPS/JSON (CA_ADDRESS). */
function startMeshCaServer(options: ControlPlaneOptions, ca: CertificateAuthority): Promise<CaServer> {
  const { log } = options;
  return startCaServer({
    ca,
    authenticate: (token) => options.authenticate(token),
    pods: () => options.source.pods(),
    onRefused: (status, reason) => {
      log.warn('certificate request refused', { status, reason });
    },
    host: options.host,
    port: options.ports?.ca ?? CA_PORT,
  });
}

/** Plaintext workload discovery for our ztunnels (XDS_ADDRESS). */
function startWorkloadDiscovery(options: ControlPlaneOptions): Promise<DiscoveryServer> {
  const { clock, log } = options;
  return startDiscoveryServer({
    host: options.host,
    port: options.ports?.xds ?? XDS_PORT,
    clock,
    onSubscribe: (node, instance) => {
      log.debug('subscribed', { node, instance });
    },
  });
}

/** Where istio/ztunnel's delta ADS listens. */
function ztunnelXdsHostOf(options: ControlPlaneOptions): string {
  return options.ztunnelXdsHost ?? options.host;
}

function issueXdsServing(state: ControlPlaneState): Promise<ServingCertificate> {
  const { options } = state;
  return state.ca.issueServing({
    dns: ISTIOD_HOSTNAMES,
    ips: [...new Set([options.host, ztunnelXdsHostOf(options)])],
  });
}

/** Envoy's mTLS ADS: each gateway proxy's configuration. */
function startEnvoyAds(state: ControlPlaneState, serving: ServingCertificate): Promise<AdsServer> {
  const { options, ca } = state;
  const { log } = options;
  return startAdsServer({
    host: options.host,
    port: options.ports
      ? (options.ports.envoyXds ?? (options.ports.xds === 0 ? 0 : ENVOY_XDS_PORT))
      : ENVOY_XDS_PORT,
    tls: { key: serving.keyPem, cert: serving.certPem, ca: ca.rootPem },
    authorize: (node, peer) => authorizeProxy(node, peer, () => options.source.pods()),
    // Each proxy's configuration from what the last push sent: Envoy sees changes when ztunnels do.
    configFor: (node) => proxyResources(node, state.pushed, state.pushedNetworking),
    onNack: (nack) => {
      log.error('proxy refused configuration (NACK)', { ...nack });
      options.onNack?.(nack);
    },
    onRefused: (node, reason) => {
      log.warn('xDS connection refused', { node, reason });
    },
  });
}

/**
 * istio/ztunnel's discovery from the same pushed snapshot: every workload and service (istiod's
 * wildcard WDS), and no authorization policies (the harness applies none).
 */
function startZtunnelAds(state: ControlPlaneState, serving: ServingCertificate): Promise<DeltaAdsServer> {
  const { options } = state;
  const { log } = options;
  const portFor = (given: number | undefined, fixed: number): number =>
    options.ports ? (given ?? (options.ports.xds === 0 ? 0 : fixed)) : fixed;
  return startDeltaAdsServer({
    host: ztunnelXdsHostOf(options),
    port: portFor(options.ports?.ztunnelXds, ZTUNNEL_XDS_PORT),
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: async (token) => {
      const caller = await options.authenticate(token);
      return typeof caller === 'string' ? caller : { namespace: caller.namespace, podName: caller.podName };
    },
    resourcesFor: (_node, typeUrl) =>
      typeUrl === ADDRESS_TYPE_URL
        ? addressResources(state.pushed)
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
    services: [createGrpcCertificateService(state)],
  });
}

/** The gRPC CA istio/ztunnel's binary calls (CA_ADDRESS), beside its delta ADS. */
function createGrpcCertificateService(state: ControlPlaneState): GrpcService {
  const { options, ca } = state;
  const { log } = options;
  return createCertificateService({
    ca,
    authenticate: (token) => options.authenticate(token),
    pods: () => options.source.pods(),
    onRefused: (code, reason) => {
      log.warn('certificate request refused (gRPC)', { code, reason });
    },
    onIssued: (identity, chainLength) => {
      log.debug('certificate issued (gRPC)', { identity, chainLength });
    },
  });
}
