// istiod's CreateCertificate (istio/istio security/pkg/server/ca/server.go 75-161 at 86c9f01f), the
// one implementation both transports call: HTTPS with JSON (ca-server.ts) and gRPC
// (certificate-service.ts, what istio/ztunnel's binary asks). In istiod's order: authenticate the
// bearer token (79-83), authorize an ImpersonatedIdentity through the node authorizer (88-109),
// then sign the CSR's key for the resulting identity (110-132); the chain is the leaf, then the
// root last (140-155).
import type { CertificateAuthority } from './ca.ts';
import { readCsr } from './csr.ts';
import { checkImpersonation } from './node-authorizer.ts';
import type { AuthorizerPod } from './node-authorizer.ts';
import { parseSpiffeId } from './spiffe.ts';
import type { TokenCaller } from './service-account-token.ts';

/** IstioCertificateRequest's fields, however they arrived. */
export interface CertificateRequest {
  /** The bearer token from the `authorization` header or metadata; undefined when none was sent. */
  token: string | undefined;
  /** PEM PKCS#10; anything else is refused as invalid. */
  csr: unknown;
  /** validity_duration in seconds; 0 or negative takes the default. */
  validityDurationS: number;
  /** metadata.ImpersonatedIdentity, '' when absent. */
  impersonatedIdentity: string;
}

export interface CertificateSigner {
  ca: CertificateAuthority;
  /** TokenReview: the caller, or why the token is refused. */
  authenticate(token: string): Promise<TokenCaller | string>;
  /** The pods the node authorizer reads (the control plane's informer). */
  pods(): readonly AuthorizerPod[];
}

/** istiod's gRPC codes for a refusal: each transport maps them to its own status. */
export type RefusalCode = 'unauthenticated' | 'invalid-argument' | 'internal';

/** A refused request: what the caller is told (istiod's opaque text) and the reason logged. */
export class CertificateRefusal extends Error {
  readonly code: RefusalCode;
  readonly answer: string;
  readonly reason: string;
  constructor(code: RefusalCode, answer: string, reason = answer) {
    super(reason);
    this.code = code;
    this.answer = answer;
    this.reason = reason;
  }
}

const DAY_S = 24 * 3600;
/** istiod: DEFAULT_WORKLOAD_CERT_TTL 24 h, MAX_WORKLOAD_CERT_TTL 90 days. */
export const MAX_TTL_S = 90 * DAY_S;

/** The identity the certificate names: the caller's, or the impersonated one when allowed. */
async function identityFor(
  signer: CertificateSigner,
  request: CertificateRequest,
): Promise<{ namespace: string; serviceAccount: string }> {
  if (!request.token)
    throw new CertificateRefusal('unauthenticated', 'request authenticate failure', 'no bearer token');
  const caller = await signer.authenticate(request.token);
  if (typeof caller === 'string')
    throw new CertificateRefusal('unauthenticated', 'request authenticate failure', caller);
  if (!request.impersonatedIdentity)
    return { namespace: caller.namespace, serviceAccount: caller.serviceAccount };
  // server.go 101-106: refused impersonation is Unauthenticated with an opaque text, the reason logged.
  const refused = checkImpersonation(caller, request.impersonatedIdentity, signer.pods());
  if (refused)
    throw new CertificateRefusal('unauthenticated', 'request impersonation authentication failure', refused);
  // checkImpersonation parsed it already; a SPIFFE id is all that passes.
  const id = parseSpiffeId(request.impersonatedIdentity);
  return { namespace: id?.namespace ?? '', serviceAccount: id?.serviceAccount ?? '' };
}

/** Signs the request, or throws CertificateRefusal: the chain, leaf first and root last. */
export async function signCertificateRequest(
  signer: CertificateSigner,
  request: CertificateRequest,
): Promise<string[]> {
  const identity = await identityFor(signer, request);
  // istiod: a non-positive duration takes the default, one over the maximum is a TTLError
  // (InvalidArgument, security/pkg/pki/error/error.go 64-76), as a CSR that does not parse.
  const ttlS = request.validityDurationS > 0 ? request.validityDurationS : DAY_S;
  if (ttlS > MAX_TTL_S)
    throw new CertificateRefusal('invalid-argument', `validityDuration over ${String(MAX_TTL_S)} s`);
  const publicKey = await readCsr(request.csr);
  if (typeof publicKey === 'string')
    throw new CertificateRefusal('invalid-argument', `CSR signing error (${publicKey})`, publicKey);
  const { certPem } = await signer.ca.sign(publicKey, identity, { validityMs: ttlS * 1000 });
  return [certPem, signer.ca.rootPem];
}

/** Any failure as a refusal: CertificateRefusal as it is, anything else an internal error. */
export const asRefusal = (err: unknown): CertificateRefusal =>
  err instanceof CertificateRefusal
    ? err
    : new CertificateRefusal('internal', 'CSR signing error', String(err));
