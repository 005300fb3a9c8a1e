// The mesh CA: a self-signed root and short-lived workload certificates with a SPIFFE URI SAN, as
// istiod's CA issues them (ECDSA P-256, serverAuth + clientAuth, 24 h by default).
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import type { webcrypto as WebCrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { Identity } from './spiffe.ts';
import { formatSpiffeId } from './spiffe.ts';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

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
  issue(
    identity: Omit<Identity, 'trustDomain'>,
    options?: { validityMs?: number },
  ): Promise<WorkloadCertificate>;
}

const DAY_MS = 24 * 3600 * 1000;

function randomSerial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

async function keyPem(key: WebCrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
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

  return {
    rootPem,
    trustDomain,
    async issue(id, issueOptions = {}) {
      const identity = { trustDomain, ...id };
      const spiffeId = formatSpiffeId(identity);
      const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
      const issuedAt = Date.now();
      const notAfter = new Date(issuedAt + (issueOptions.validityMs ?? DAY_MS));
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: randomSerial(),
        subject: '',
        issuer: root.subject,
        notBefore: new Date(issuedAt - 60_000),
        notAfter,
        publicKey: keys.publicKey,
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
          new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeId }], true),
          await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
        ],
      });
      return {
        identity,
        spiffeId,
        certPem: cert.toString('pem'),
        keyPem: await keyPem(keys.privateKey),
        rootPem,
        notAfter,
      };
    },
  };
}
