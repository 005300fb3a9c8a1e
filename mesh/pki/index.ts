export { createCertificateAuthority } from './ca.ts';
export type { CertificateAuthority, WorkloadCertificate } from './ca.ts';
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
export { createCaClient, startCaServer } from './ca-server.ts';
export type { CaServer } from './ca-server.ts';
