// The mesh CA: a self-signed root and short-lived workload certificates with a SPIFFE URI SAN, as
// istiod's CA issues them (ECDSA P-256, serverAuth + clientAuth, 24 h by default).
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import type { webcrypto as WebCrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { createCsr, KEY_ALGORITHM, privateKeyPem, readCsr } from './csr.ts';
import type { Identity } from './spiffe.ts';
import { formatSpiffeId } from './spiffe.ts';

const ALG = KEY_ALGORITHM;

/** PEM material a TLS endpoint needs. */
export interface WorkloadCertificate {
  identity: Identity;
  spiffeId: string;
  certPem: string;
  keyPem: string;
  /** The trust anchor peers are checked against. */
  rootPem: string;
  notAfter: Date;
}

export interface CertificateAuthority {
  rootPem: string;
  trustDomain: string;
  /** Signs a CSR's public key for `identity` (the CSR's own names are not used): leaf PEM. */
  sign(
    publicKey: WebCrypto.CryptoKey,
    identity: Omit<Identity, 'trustDomain'>,
    options?: { validityMs?: number },
  ): Promise<{ certPem: string; notAfter: Date }>;
  /**
   * Key and certificate for one identity, made in this process (tests and benches that hold the CA
   * themselves; workloads get theirs over the CA server with a CSR).
   */
  issue(
    identity: Omit<Identity, 'trustDomain'>,
    options?: { validityMs?: number },
  ): Promise<WorkloadCertificate>;
  /** istiod's own serving certificate (DNS and IP SANs), for the CA's TLS listener. */
  issueServing(names: { dns: string[]; ips: string[] }): Promise<{ certPem: string; keyPem: string }>;
}

const DAY_MS = 24 * 3600 * 1000;

function randomSerial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

export async function createCertificateAuthority(
  options: { trustDomain?: string; name?: string } = {},
): Promise<CertificateAuthority> {
  const trustDomain = options.trustDomain ?? 'cluster.local';
  const rootKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `O=${options.name ?? 'ztunnel-harness mesh CA'}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * DAY_MS),
    keys: rootKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const rootPem = root.toString('pem');

  const signLeaf = async (
    publicKey: WebCrypto.CryptoKey,
    names: x509.JsonGeneralName[],
    validityMs: number,
  ): Promise<{ certPem: string; notAfter: Date }> => {
    const issuedAt = Date.now();
    const notAfter = new Date(issuedAt + validityMs);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: '',
      issuer: root.subject,
      notBefore: new Date(issuedAt - 60_000),
      notAfter,
      publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([
          x509.ExtendedKeyUsage.serverAuth,
          x509.ExtendedKeyUsage.clientAuth,
        ]),
        new x509.SubjectAlternativeNameExtension(names, true),
        await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    return { certPem: cert.toString('pem'), notAfter };
  };

  const ca: CertificateAuthority = {
    rootPem,
    trustDomain,
    sign: (publicKey, id, signOptions = {}) =>
      signLeaf(
        publicKey,
        [{ type: 'url', value: formatSpiffeId({ trustDomain, ...id }) }],
        signOptions.validityMs ?? DAY_MS,
      ),
    async issue(id, issueOptions = {}) {
      const identity = { trustDomain, ...id };
      const spiffeId = formatSpiffeId(identity);
      const { csrPem, keyPem } = await createCsr(spiffeId);
      const publicKey = await readCsr(csrPem);
      if (typeof publicKey === 'string') throw new Error(publicKey);
      const { certPem, notAfter } = await ca.sign(publicKey, id, issueOptions);
      return { identity, spiffeId, certPem, keyPem, rootPem, notAfter };
    },
    async issueServing(names) {
      const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
      const { certPem } = await signLeaf(
        keys.publicKey,
        [
          ...names.dns.map((value) => ({ type: 'dns' as const, value })),
          ...names.ips.map((value) => ({ type: 'ip' as const, value })),
        ],
        365 * DAY_MS,
      );
      return { certPem, keyPem: await privateKeyPem(keys.privateKey) };
    },
  };
  return ca;
}
