import type { SecureContextOptions } from 'node:tls';
import type { WorkloadCertificate } from './ca.ts';

/**
 * mTLS both ways with ALPN h2, as HBONE requires. Peers are checked against the mesh root only; the
 * SPIFFE identity is checked by the caller (Node's hostname check does not apply to URI SANs).
 */
export function mtlsContext(cert: WorkloadCertificate): SecureContextOptions & {
  ALPNProtocols: string[];
  requestCert: true;
  rejectUnauthorized: true;
  minVersion: 'TLSv1.3';
} {
  return {
    cert: cert.certPem,
    key: cert.keyPem,
    ca: cert.rootPem,
    ALPNProtocols: ['h2'],
    requestCert: true,
    rejectUnauthorized: true,
    // ztunnel speaks TLS 1.3 only (src/tls/lib.rs: TLS_VERSIONS = [&TLS13]).
    minVersion: 'TLSv1.3',
  };
}
