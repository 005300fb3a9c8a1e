// Certificate signing requests as ztunnel makes them (src/tls/csr.rs: an ECDSA P-256 key generated
// by the workload's proxy, a PKCS#10 request carrying the SPIFFE id as a URI SAN); the private key
// never leaves the process that generated it.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import type { webcrypto as WebCrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export async function privateKeyPem(key: WebCrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** A fresh key pair and a CSR for `san` (a SPIFFE URI), signed with that key. */
export async function createCsr(san: string): Promise<{ csrPem: string; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    keys,
    signingAlgorithm: KEY_ALGORITHM,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'url', value: san }])],
  });
  return { csrPem: csr.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * The public key of a PKCS#10 request whose self-signature verifies, or why it is refused. The
 * request's own names are ignored: istiod signs the caller's authenticated identity, not what the
 * CSR asks for (security/pkg/server/ca/server.go, "the SAN is the identity of the caller").
 */
export async function readCsr(pem: unknown): Promise<WebCrypto.CryptoKey | string> {
  if (typeof pem !== 'string' || !pem.includes('CERTIFICATE REQUEST'))
    return 'csr must be a PEM "CERTIFICATE REQUEST"';
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem);
  } catch (err) {
    return `csr does not parse: ${(err as Error).message}`;
  }
  if (!(await csr.verify().catch(() => false))) return 'csr signature does not verify';
  try {
    return (await csr.publicKey.export(KEY_ALGORITHM, ['verify'])) as WebCrypto.CryptoKey;
  } catch {
    return 'csr key is not ECDSA P-256';
  }
}
