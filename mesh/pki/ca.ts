// The mesh CA: a self-signed root and short-lived workload certificates with a SPIFFE URI SAN, as
// istiod's CA issues them (ECDSA P-256, serverAuth + clientAuth, 24 h by default).
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
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

/** A CA root brought from files: a certificate and its PKCS#8 private key (RSA or ECDSA P-256). */
export interface RootMaterial {
  certPem: string;
  keyPem: string;
}

interface Root {
  cert: x509.X509Certificate;
  privateKey: WebCrypto.CryptoKey;
  publicKey: WebCrypto.CryptoKey;
  signingAlgorithm: typeof ALG | { name: 'RSASSA-PKCS1-v1_5'; hash: 'SHA-256' };
}

async function createRoot(name: string): Promise<Root> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `O=${name}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * DAY_MS),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, privateKey: keys.privateKey, publicKey: keys.publicKey, signingAlgorithm: ALG };
}

/**
 * An existing root, e.g. istio/ztunnel's public test root (src/tls/root-cert.pem and ca-key.pem,
 * RSA), which a ztunnel run with FAKE_CA=true trusts: certificates we sign with it are accepted by
 * that ztunnel, and its own (signed by the same key) by us.
 */
async function importRoot(material: RootMaterial): Promise<Root> {
  const cert = new x509.X509Certificate(material.certPem);
  const der = Buffer.from(
    material.keyPem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, ''),
    'base64',
  );
  const keyType = new NodeX509Certificate(material.certPem).publicKey.asymmetricKeyType;
  const signingAlgorithm = keyType === 'ec' ? ALG : ({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, signingAlgorithm, false, ['sign']);
  const publicKey = (await cert.publicKey.export(signingAlgorithm, ['verify'])) as WebCrypto.CryptoKey;
  return { cert, privateKey, publicKey, signingAlgorithm };
}

export async function createCertificateAuthority(
  options: { trustDomain?: string; name?: string; root?: RootMaterial } = {},
): Promise<CertificateAuthority> {
  const trustDomain = options.trustDomain ?? 'cluster.local';
  const root = options.root
    ? await importRoot(options.root)
    : await createRoot(options.name ?? 'ztunnel-harness mesh CA');
  const rootPem = root.cert.toString('pem');

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
      // The subject as the root encodes it: chain building compares names byte for byte (a
      // PrintableString where the root has a UTF8String is an unknown issuer to rustls).
      issuer: root.cert.subjectName,
      notBefore: new Date(issuedAt - 60_000),
      notAfter,
      publicKey,
      signingKey: root.privateKey,
      signingAlgorithm: root.signingAlgorithm,
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
        await x509.AuthorityKeyIdentifierExtension.create(root.publicKey),
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
