// The CA as istiod runs it: callers authenticated by a pod-bound service-account token, certificates
// signed from a CSR for the token's identity (or, for ztunnel, an identity on its own node), no
// private key ever sent, and bad requests answered 400/401/413 while it goes on issuing.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  boundPodOf,
  createCaClient,
  createCertificateAuthority,
  createCsr,
  CREATE_CERTIFICATE_PATH,
  identityOfCertificate,
  startStandaloneCa,
} from '../index.ts';
import type { AuthorizerPod, StandaloneCa } from '../index.ts';

const pod = (name: string, namespace: string, serviceAccount: string, nodeName: string): AuthorizerPod => ({
  name,
  namespace,
  serviceAccount,
  nodeName,
  uid: `uid-${name}`,
  isTerminal: false,
});
const ZTUNNEL_1 = pod('ztunnel-1', 'istio-system', 'ztunnel', 'node-1');
const HTTPBIN_1 = pod('httpbin-1', 'default', 'httpbin', 'node-1');
const OTHER_2 = pod('other-2', 'default', 'other', 'node-2');
const spiffe = (ns: string, sa: string) => `spiffe://cluster.local/ns/${ns}/sa/${sa}`;

async function withCa(t: { after(fn: () => unknown): void }): Promise<StandaloneCa> {
  const dir = await mkdtemp(join(tmpdir(), 'ca-server-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await startStandaloneCa({ dir, pods: [ZTUNNEL_1, HTTPBIN_1, OTHER_2], host: '127.178.0.1' });
  t.after(() => ca.close());
  return ca;
}

const tokenFor = (ca: StandaloneCa, p: AuthorizerPod, audience = 'istio-ca', uid = p.uid) =>
  ca.tokens.issue({ ...boundPodOf(p), podUid: uid }, { audience, expirationSeconds: 3600 });

function post(ca: StandaloneCa, body: string, token?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${ca.url}${CREATE_CERTIFICATE_PATH}`,
      { method: 'POST', ca: ca.ca.rootPem, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const csrBody = async (san: string, impersonate?: string) =>
  JSON.stringify({
    csr: (await createCsr(san)).csrPem,
    validityDuration: 3600,
    ...(impersonate ? { metadata: { ImpersonatedIdentity: impersonate } } : {}),
  });

const leafIdentity = (text: string) => {
  const chain = (JSON.parse(text) as { certChain: string[] }).certChain;
  const id = identityOfCertificate(new X509Certificate(chain[0] ?? ''));
  return id ? spiffe(id.namespace, id.serviceAccount) : undefined;
};

describe('the CA (istiod CreateCertificate)', () => {
  it('refuses a request without a valid token with 401', async (t) => {
    const ca = await withCa(t);
    const body = await csrBody(spiffe('default', 'httpbin'));
    assert.equal((await post(ca, body)).status, 401, 'no token');
    assert.equal((await post(ca, body, 'not-a-jwt')).status, 401, 'garbage token');
    assert.equal(
      (await post(ca, body, await tokenFor(ca, HTTPBIN_1, 'kubernetes'))).status,
      401,
      'other audience',
    );
    assert.equal(
      (await post(ca, body, await tokenFor(ca, HTTPBIN_1, 'istio-ca', 'uid-gone'))).status,
      401,
      'pod re-created',
    );
    const foreignDir = await mkdtemp(join(tmpdir(), 'ca-foreign-'));
    t.after(() => rm(foreignDir, { recursive: true, force: true }));
    const foreign = await startStandaloneCa({ dir: foreignDir, pods: [HTTPBIN_1], host: '127.178.0.2' });
    t.after(() => foreign.close());
    assert.equal(
      (await post(ca, body, await tokenFor(foreign, HTTPBIN_1))).status,
      401,
      "another API server's token",
    );
  });

  it("signs the token's identity only, whatever the CSR asks, and never sends a key", async (t) => {
    const ca = await withCa(t);
    const res = await post(ca, await csrBody(spiffe('kube-system', 'admin')), await tokenFor(ca, HTTPBIN_1));
    assert.equal(res.status, 200);
    assert.equal(leafIdentity(res.text), spiffe('default', 'httpbin'));
    assert.doesNotMatch(res.text, /PRIVATE KEY/);
    const chain = (JSON.parse(res.text) as { certChain: string[] }).certChain;
    assert.equal(chain.at(-1), ca.ca.rootPem, 'the root is last');
  });

  it('lets ztunnel impersonate only identities with a pod on its own node', async (t) => {
    const ca = await withCa(t);
    const ztunnel = await tokenFor(ca, ZTUNNEL_1);
    const ask = async (token: string, ns: string, sa: string) =>
      post(ca, await csrBody(spiffe(ns, sa), spiffe(ns, sa)), token);
    const own = await ask(ztunnel, 'default', 'httpbin');
    assert.equal(own.status, 200);
    assert.equal(leafIdentity(own.text), spiffe('default', 'httpbin'));
    assert.equal((await ask(ztunnel, 'default', 'other')).status, 401, 'its pod runs on node-2');
    assert.equal((await ask(ztunnel, 'kube-system', 'admin')).status, 401, 'no such pod');
    assert.equal(
      (await ask(await tokenFor(ca, HTTPBIN_1), 'istio-system', 'ztunnel')).status,
      401,
      'not a node account',
    );
  });

  it('answers malformed requests 400/413/404 and goes on issuing', async (t) => {
    const ca = await withCa(t);
    const token = await tokenFor(ca, HTTPBIN_1);
    assert.equal((await post(ca, '{not json', token)).status, 400);
    assert.equal((await post(ca, 'null', token)).status, 400);
    assert.equal((await post(ca, '{"csr": 7}', token)).status, 400);
    assert.equal(
      (await post(ca, '{"csr": "-----BEGIN CERTIFICATE REQUEST-----\\ngarbage\\n"}', token)).status,
      400,
    );
    const { csrPem } = await createCsr(spiffe('default', 'httpbin'));
    // Flip a bit of the signature's last byte (the DER's last): a change in the base64 text could
    // land in padding bits and change nothing.
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der.writeUInt8((der.at(-1) ?? 0) ^ 1, der.length - 1);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.equal((await post(ca, JSON.stringify({ csr: tampered }), token)).status, 400, 'signature broken');
    assert.equal((await post(ca, 'x'.repeat(100_000), token)).status, 413);
    assert.equal((await post(ca, JSON.stringify({ csr: csrPem, validityDuration: 1e9 }), token)).status, 400);
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest(`${ca.url.replace('https:', 'http:')}${CREATE_CERTIFICATE_PATH}`, {
        method: 'POST',
      });
      req.on('response', (res) => {
        resolve(`HTTP ${String(res.statusCode)}`);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        resolve(err.code ?? err.message);
      });
      req.end('{}');
    });
    assert.doesNotMatch(plain, /HTTP 200/, 'plaintext gets no certificate');
    assert.equal((await post(ca, JSON.stringify({ csr: csrPem }), token)).status, 200);
  });

  it("the client: a CSR per identity, the key kept, the CA's certificate checked against the root", async (t) => {
    const ca = await withCa(t);
    const token = await tokenFor(ca, ZTUNNEL_1);
    const client = createCaClient({
      address: ca.url,
      rootPem: ca.ca.rootPem,
      token: () => token,
      impersonate: true,
    });
    const cert = await client({ namespace: 'default', serviceAccount: 'httpbin' });
    assert.equal(cert.spiffeId, spiffe('default', 'httpbin'));
    assert.match(cert.keyPem, /BEGIN PRIVATE KEY/);
    await assert.rejects(client({ namespace: 'default', serviceAccount: 'other' }), /answered 401/);
    const otherRoot = (await createCertificateAuthority()).rootPem;
    const distrusting = createCaClient({
      address: ca.url,
      rootPem: otherRoot,
      token: () => token,
      impersonate: true,
    });
    await assert.rejects(
      distrusting({ namespace: 'default', serviceAccount: 'httpbin' }),
      /self-signed|unable to verify|certificate/i,
    );
  });
});
