import type { Server } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { DiscoveryState, WorkloadEntry } from '../../mesh/discovery/index.ts';
import { mtlsContext, parseIdentityServerName } from '../../mesh/pki/index.ts';
import type { Identity, WorkloadCertificate } from '../../mesh/pki/index.ts';
import { HBONE_PORT } from '../../mesh/workload.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { createConnectionTracker } from '../proxy/connection-tracker.ts';
import { createHboneServer, UNKNOWN_WORKLOAD_WAIT_MS } from './hbone-inbound.ts';
import type { DeniedTarget, HboneTarget, TargetResolver } from './hbone-inbound.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import { bindInbound } from './pod-listeners.ts';
import type { InboundListeners } from './pod-listeners.ts';

export interface NodeListenerOptions {
  nodeIp: string;
  nodeName: string;
  discovery: DiscoveryState;
  issueCert: (identity: { namespace: string; serviceAccount: string }) => Promise<WorkloadCertificate>;
  /**
   * Served when a client names no identity (ztunnel's own); such a client's CONNECTs reach the pod
   * of this node their authority names, served inbound with that pod's certificate.
   */
  ownCert: WorkloadCertificate;
  deps: Omit<ProxyDeps, 'tracker'>;
}

const sameIdentity = (w: WorkloadEntry, id: Identity): boolean =>
  w.namespace === id.namespace && w.serviceAccount === id.serviceAccount;

/** The pod as inbound serves it: the app on the pod IP itself (nothing captures it). */
const toLocalWorkload = (w: WorkloadEntry): LocalWorkload => ({
  uid: w.uid,
  name: w.name,
  namespace: w.namespace,
  serviceAccount: w.serviceAccount,
  podIp: w.podIp,
  appIp: w.podIp,
  ports: [],
});

/**
 * ztunnel's node-address mode (the kind backend; upstream's INPOD_ENABLED=false): one HBONE
 * listener on the node's address (:15008, hostNetwork) for every ambient pod of this node, instead
 * of a listener inside each pod. The pods come from discovery (workloads on this node with protocol
 * HBONE), not from the CNI node agent. Which identity to serve is named by the client's SNI
 * (identityServerName), and only identities of this node's pods are served; a CONNECT must name a
 * pod of this node with that identity (else 400: no open relay). A client with no SNI (Envoy's
 * connect_originate: see `toTargetWithoutSni`) is served ztunnel's own certificate, and each CONNECT
 * reaches the pod of this node its authority names (else 400). The app is reached on the pod IP
 * itself (nothing captures it). Plaintext inbound and the outbound capture are not offered: with no
 * traffic redirection, plaintext to a pod reaches its app directly.
 */
export async function startNodeListener(options: NodeListenerOptions): Promise<InboundListeners> {
  const { discovery, nodeName } = options;
  const tracker = createConnectionTracker();
  const deps: ProxyDeps = { ...options.deps, tracker };
  const certs = new Map<string, WorkloadCertificate>();
  const isLocal = (w: WorkloadEntry): boolean => w.node === nodeName && w.protocol === 'HBONE';

  const SNICallback = (servername: string, done: (err: Error | null, ctx?: SecureContext) => void): void => {
    const id = parseIdentityServerName(servername);
    if (!id) {
      done(new Error(`server name ${servername} names no identity`));
      return;
    }
    if (!discovery.workloads().some((w) => isLocal(w) && sameIdentity(w, id))) {
      done(new Error(`no pod of node ${nodeName} has identity ${id.namespace}/${id.serviceAccount}`));
      return;
    }
    options.issueCert(id).then(
      (cert) => {
        certs.set(servername, cert);
        done(null, createSecureContext(mtlsContext(cert)));
      },
      (err: unknown) => {
        done(err instanceof Error ? err : new Error(String(err)));
      },
    );
  };

  const toTargetWithSni = (w: WorkloadEntry | undefined, servername: string): HboneTarget | undefined => {
    const id = parseIdentityServerName(servername);
    const cert = certs.get(servername);
    if (!w || !isLocal(w) || !id || !cert || !sameIdentity(w, id)) return undefined;
    return { workload: toLocalWorkload(w), cert };
  };

  /**
   * A client that named no identity: Envoy's connect_originate cluster sets no SNI (istiod's
   * pilot/pkg/networking/core/listener_waypoint.go buildCommonConnectTLSContext builds no `sni`, and
   * checks only the SAN prefix spiffe://<trust domain>/), so ztunnel's own certificate satisfies its
   * handshake. The CONNECT's authority (Envoy sends the original destination, pod IP:port, while it
   * dials the EDS endpoint's `waypoint` address, this node's :15008) picks the pod: upstream never
   * reads SNI either (istio/ztunnel src/proxy/inbound.rs InboundCertProvider: the pod's own
   * certificate in-pod, the redirected original destination's in the old shared mode), and here the
   * destination address is the node's. It must be an HBONE pod of this node (no open relay);
   * its own certificate is fetched for the inbound side as the SNI path does (the CA client caches
   * one per identity).
   */
  const toTargetWithoutSni = (
    w: WorkloadEntry | undefined,
    host: string,
  ): Promise<HboneTarget> | DeniedTarget => {
    if (!w || !isLocal(w)) return { deny: `${host} is no HBONE pod of node ${nodeName}` };
    return options
      .issueCert({ namespace: w.namespace, serviceAccount: w.serviceAccount })
      .then((cert) => ({ workload: toLocalWorkload(w), cert }));
  };

  const toTarget = (
    w: WorkloadEntry | undefined,
    host: string,
    socket: TLSSocket,
  ): HboneTarget | DeniedTarget | undefined | Promise<HboneTarget> => {
    // Node's server socket: the client's SNI, or false when it sent none.
    const servername = typeof socket.servername === 'string' ? socket.servername : '';
    return servername === '' ? toTargetWithoutSni(w, host) : toTargetWithSni(w, servername);
  };

  const resolveTarget: TargetResolver = (target, socket) => {
    const known = discovery.workloadByIp(target.host);
    if (known) return toTarget(known, target.host, socket);
    return discovery
      .waitForWorkload(target.host, UNKNOWN_WORKLOAD_WAIT_MS)
      .then(() => toTarget(discovery.workloadByIp(target.host), target.host, socket));
  };

  const hbone = createHboneServer({ ...mtlsContext(options.ownCert), SNICallback }, resolveTarget, deps);
  const servers: [Server, number][] = [[hbone.server, HBONE_PORT]];
  return bindInbound(servers, options.nodeIp, hbone, tracker);
}
