export { createCertificateAuthority } from './ca.ts';
export type { CertificateAuthority, RootMaterial, WorkloadCertificate } from './ca.ts';
export {
  checkSpiffeServer,
  formatSpiffeId,
  identityOfCertificate,
  identityServerName,
  parseIdentityServerName,
  parseSpiffeId,
} from './spiffe.ts';
export type { Identity } from './spiffe.ts';
export { mtlsContext } from './tls-options.ts';
export { CREATE_CERTIFICATE_PATH, ISTIOD_HOSTNAMES, startCaServer } from './ca-server.ts';
export type { CaServer, CaServerOptions } from './ca-server.ts';
export { CertificateRefusal, signCertificateRequest } from './certificate-request.ts';
export type { CertificateRequest, CertificateSigner, RefusalCode } from './certificate-request.ts';
export {
  certificateRequestCodec,
  certificateResponseCodec,
  certificateServiceDefinition,
  CREATE_CERTIFICATE_METHOD,
} from './certificate-protos.ts';
export type { IstioCertificateRequest, IstioCertificateResponse } from './certificate-protos.ts';
export { createCertificateService } from './certificate-service.ts';
export type { CertificateServiceOptions, GrpcService } from './certificate-service.ts';
export { CaAnswerError, caClientFromEnv, createCaClient, isTransientCaError } from './ca-client.ts';
export type { CaClientOptions, RequestCertificate } from './ca-client.ts';
export { createCsr } from './csr.ts';
export { checkImpersonation, DEFAULT_TRUSTED_NODE_ACCOUNTS } from './node-authorizer.ts';
export type { AuthorizerPod } from './node-authorizer.ts';
export {
  boundPodOf,
  createTokenIssuer,
  ISTIO_CA_AUDIENCE,
  SERVICE_ACCOUNT_ISSUER,
} from './service-account-token.ts';
export type { BoundPod, TokenCaller, TokenIssuer } from './service-account-token.ts';
export { startStandaloneCa, writeCredentials } from './standalone-ca.ts';
export type { CaEnv, StandaloneCa } from './standalone-ca.ts';
