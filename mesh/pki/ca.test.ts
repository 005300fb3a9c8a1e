import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { createCertificateAuthority } from './ca.ts';
import { identityOfCertificate, parseSpiffeId } from './spiffe.ts';

test('workload certificates carry the SPIFFE identity and chain to the root', async () => {
  const ca = await createCertificateAuthority();
  const issued = await ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  const cert = new X509Certificate(issued.certPem);
  const root = new X509Certificate(ca.rootPem);
  assert.equal(issued.spiffeId, 'spiffe://cluster.local/ns/default/sa/httpbin');
  assert.ok(cert.verify(root.publicKey), 'signed by the root');
  assert.ok(cert.checkIssued(root));
  assert.equal(cert.ca, false);
  assert.equal(root.ca, true);
  assert.deepEqual(identityOfCertificate(cert), {
    trustDomain: 'cluster.local',
    namespace: 'default',
    serviceAccount: 'httpbin',
  });
  assert.ok(issued.keyPem.startsWith('-----BEGIN PRIVATE KEY-----'));
});

test('a certificate from another CA does not verify against this root', async () => {
  const ours = await createCertificateAuthority();
  const theirs = await createCertificateAuthority();
  const foreign = new X509Certificate((await theirs.issue({ namespace: 'x', serviceAccount: 'y' })).certPem);
  assert.equal(foreign.verify(new X509Certificate(ours.rootPem).publicKey), false);
});

test('SPIFFE ids parse only in Istio form', () => {
  assert.deepEqual(parseSpiffeId('spiffe://td/ns/a/sa/b'), {
    trustDomain: 'td',
    namespace: 'a',
    serviceAccount: 'b',
  });
  assert.equal(parseSpiffeId('spiffe://td/a/b'), undefined);
  assert.equal(parseSpiffeId('https://td/ns/a/sa/b'), undefined);
});
