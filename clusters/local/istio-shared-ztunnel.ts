// istio/ztunnel's binary as the node's ztunnel DaemonSet in shared (in-pod) mode (--ztunnel-impl
// istio-shared; docs/design/istio-ztunnel-shared-mode.md): each DaemonSet pod runs the binary in a
// network namespace of its own (it binds fixed :15021, :15020, :15000), connected to the node's ZDS
// agent (mesh/zds startSharedZdsNodeAgent: AddWorkload with each meshed pod's netns fd, as istio-cni
// sends it), with live discovery: delta ADS from our control plane (mesh/xds/delta-ads-server.ts),
// so pods that come and go while an instance runs (E2's rollout) reach it as istiod's pushes would;
// and its certificates from our CA over gRPC on the same server (mesh/pki/certificate-service.ts),
// or with FAKE_CA.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalImage } from './images.ts';

/**
 * Where the binary's workload certificates come from: `istiod`, our CA over gRPC
 * (CreateCertificate, impersonating each workload: src/identity/caclient.rs 62-122 at 1.28.1), as an
 * official build must; `fake`, FAKE_CA=true, minted in the process from istio/ztunnel's test root
 * (the `testing` feature only: src/app.rs 315-332), which the mesh CA must then sign with too.
 */
export const ISTIO_SHARED_CA_MODES = ['istiod', 'fake'] as const;
export type IstioSharedCa = (typeof ISTIO_SHARED_CA_MODES)[number];

export interface SharedImageOptions {
  binary: string;
  /** The node's run folder (the hostPath /var/run/ztunnel: its ZDS socket) by node name. */
  nodeRunDir(nodeName: string): string;
  /** The control plane's delta ADS for ztunnel (host:port), and the mesh root its certificate chains to. */
  xds: { address: string; rootCertPem: string };
  /** Default 'istiod': our gRPC CA, on the delta ADS server's address. */
  ca?: IstioSharedCa;
}

/**
 * The certificate env. Without FAKE_CA the binary asks CA_ADDRESS (src/config.rs 528-533) over TLS
 * checked against CA_ROOT_CA (a file: 546-555) with the same bearer token as XDS (`auth`, 557-577),
 * in shared mode with metadata ImpersonatedIdentity (src/identity/manager.rs 549-566,
 * `proxy_mode == Shared`). istiod serves the CA on XDS_ADDRESS's server (15012); ours does as well.
 * The `testing` build needs nothing more with FAKE_CA off: its only switch on it is the mock secret
 * manager (src/app.rs 315-332).
 */
function caEnv(options: SharedImageOptions, rootCert: string): Record<string, string> {
  if (options.ca === 'fake') return { FAKE_CA: 'true' };
  return {
    CA_ADDRESS: `https://${options.xds.address}`,
    CA_ROOT_CA: rootCert,
    // A successful fetch is logged at debug only (src/identity/manager.rs 409, `certificate fetch
    // succeeded` with the id): on for the identity module, so the pod log shows where each
    // certificate came from (RUST_LOG's default is `info`, src/telemetry.rs 87-94). xds::client at
    // debug too: each xDS response's `received response` line, at info up to 1.29 and at debug from
    // 1.30.0 (istio/ztunnel#1723), so every version's log shows what it received.
    RUST_LOG: 'info,ztunnel::identity=debug,ztunnel::xds::client=debug',
  };
}

/**
 * The ztunnel image (IMAGES.ztunnel) as istio/ztunnel's binary in shared mode. The manifest's env
 * stays (TERMINATION_GRACE_PERIOD_SECONDS from the pod's grace: the drain deadline, src/config.rs
 * 810-829; NODE_NAME, INSTANCE_IP); this adds what the binary reads instead of ours.
 */
export function istioSharedZtunnelImage(options: SharedImageOptions): LocalImage {
  return {
    entrypoint: '',
    binary: options.binary,
    // src/readiness.rs: the ZDS snapshot applied, every start-up task done.
    startedPattern: /marking server ready/,
    // src/drain.rs run_with_drain: at the deadline, only when connections were left; in shared mode
    // one line per workload proxy (each pod's inbound), all at the instance's one deadline.
    logEvents: [
      {
        pattern: /drain duration expired with pending connections/,
        kind: 'drain-deadline',
        oncePerContainer: true,
      },
    ],
    podEnv: (pod) => {
      const runDir = options.nodeRunDir(pod.nodeName);
      const rootCert = join(runDir, 'xds-root-cert.pem');
      writeFileSync(rootCert, options.xds.rootCertPem);
      return {
        // PROXY_MODE unset: shared, in-pod mode on (src/config.rs).
        INPOD_UDS: join(runDir, 'ztunnel.sock'),
        ...caEnv(options, rootCert),
        // Delta ADS over TLS (src/xds/client.rs 624-646), the server verified against XDS_ROOT_CA (a
        // file: src/config.rs 535-544) by the address's host, an IP our serving certificate names
        // (src/tls/control.rs 179-199; ALT_XDS_HOSTNAME is not needed). The bearer token is the
        // manifest's AUTH_TOKEN, the pod's projected istio-ca token (config.rs 557-577; a path that
        // does not exist would be sent as the token itself, and without AUTH_TOKEN and the default
        // ./var/run/secrets/tokens/istio-token no token is sent, which our server refuses).
        XDS_ADDRESS: `https://${options.xds.address}`,
        XDS_ROOT_CA: rootCert,
        POD_NAME: pod.name,
        POD_NAMESPACE: pod.namespace,
        // ENABLE_ORIG_SRC unset, as the chart leaves it: best effort (src/proxy.rs maybe_set_transparent),
        // which works here as root, the replies routed back by istio-cni's mark rules (inpod-capture.ts).
      };
    },
  };
}
