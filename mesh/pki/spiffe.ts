import type { X509Certificate } from 'node:crypto';

/** A workload identity: `spiffe://<trust domain>/ns/<namespace>/sa/<service account>` (Istio's form). */
export interface Identity {
  trustDomain: string;
  namespace: string;
  serviceAccount: string;
}

export function formatSpiffeId(id: Identity): string {
  return `spiffe://${id.trustDomain}/ns/${id.namespace}/sa/${id.serviceAccount}`;
}

export function parseSpiffeId(uri: string): Identity | undefined {
  const m = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/sa\/([^/]+)$/.exec(uri);
  if (!m?.[1] || !m[2] || !m[3]) return undefined;
  return { trustDomain: m[1], namespace: m[2], serviceAccount: m[3] };
}

/**
 * The TLS server name (SNI) that asks a shared ztunnel for one identity's certificate:
 * `<namespace>.<service account>.identity.<trust domain>`. A ztunnel listening on its node's address
 * (kind, hostNetwork) cannot tell from the destination address which pod a connection is for, as
 * the old shared-mode ztunnel could from the redirected original destination; the client names the
 * identity it expects instead. A namespace holds no dots (DNS label); a service account may.
 */
export function identityServerName(id: Identity): string {
  return `${id.namespace}.${id.serviceAccount}.identity.${id.trustDomain}`;
}

export function parseIdentityServerName(name: string): Identity | undefined {
  const m = /^([^.]+)\.(.+)\.identity\.([^/]+)$/.exec(name);
  if (!m?.[1] || !m[2] || !m[3]) return undefined;
  return { namespace: m[1], serviceAccount: m[2], trustDomain: m[3] };
}

/** The SPIFFE identity in a peer certificate's URI SAN (`URI:spiffe://...`), if any. */
export function identityOfCertificate(cert: X509Certificate | undefined): Identity | undefined {
  const san = cert?.subjectAltName ?? '';
  for (const entry of san.split(/,\s*/)) {
    if (entry.startsWith('URI:')) {
      const id = parseSpiffeId(entry.slice(4));
      if (id) return id;
    }
  }
  return undefined;
}

/**
 * A `checkServerIdentity` for TLS clients: the peer must present a SPIFFE identity (and `expected`'s,
 * when given). Workload certificates carry only a URI SAN, so Node's hostname check cannot apply.
 */
export function checkSpiffeServer(expected?: string) {
  return (_host: string, cert: { subjectaltname?: string }): Error | undefined => {
    const uris = (cert.subjectaltname ?? '')
      .split(/,\s*/)
      .filter((e) => e.startsWith('URI:'))
      .map((e) => e.slice(4));
    if (!uris.some((u) => parseSpiffeId(u))) return new Error('peer certificate has no SPIFFE identity');
    if (expected !== undefined && !uris.includes(expected)) {
      return new Error(`peer identity ${uris.join(',')} is not the expected ${expected}`);
    }
    return undefined;
  };
}
