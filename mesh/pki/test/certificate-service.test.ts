// The gRPC CA (istio.v1.auth.IstioCertificateService/CreateCertificate) served on the same gRPC server
// as ztunnel's delta ADS, called by a grpc-js client as istio/ztunnel's caclient.rs calls it (a CSR,
// validity_duration, metadata.ImpersonatedIdentity, `authorization: Bearer <token>`), over real TLS
// on loopback; refusals carry istiod's codes (security/pkg/server/ca/server.go 79-132).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { credentials, makeGenericClientConstructor, Metadata, status } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall, ServiceError } from '@grpc/grpc-js';
import { startDeltaAdsServer } from '../../xds/index.ts';
import { startBareGrpcServer } from '../../xds/test/bare-grpc-server.ts';
import {
  boundPodOf,
  createCertificateAuthority,
  createCertificateService,
  createCsr,
  createTokenIssuer,
  identityOfCertificate,
  ISTIO_CA_AUDIENCE,
  certificateServiceDefinition,
  createCaClient,
  isTransientCaError,
} from '../index.ts';
import type { AuthorizerPod, IstioCertificateRequest, IstioCertificateResponse } from '../index.ts';

const pod = (name: string, namespace: string, serviceAccount: string, nodeName: string): AuthorizerPod => ({
  name,
  namespace,
  serviceAccount,
  nodeName,
  uid: `uid-${name}`,
  isTerminal: false,
});
const PODS = [
  pod('ztunnel-1', 'istio-system', 'ztunnel', 'node-1'),
  pod('httpbin-1', 'default', 'httpbin', 'node-1'),
  pod('other-2', 'default', 'other', 'node-2'),
] as const;
const [ZTUNNEL_1, HTTPBIN_1] = PODS;
const spiffe = (ns: string, sa: string) => `spiffe://cluster.local/ns/${ns}/sa/${sa}`;

type UnaryMethod = (
  request: IstioCertificateRequest,
  metadata: Metadata,
  callback: (err: ServiceError | null, res?: IstioCertificateResponse) => void,
) => void;
type Call = (
  request: IstioCertificateRequest,
  token?: string,
) => Promise<{ chain: string[] } | { code: status; details: string }>;

async function setUp(t: { after(fn: () => unknown): void }) {
  const ca = await createCertificateAuthority();
  const tokens = await createTokenIssuer();
  const serving = await ca.issueServing({ dns: [], ips: ['127.0.0.1'] });
  const refused: string[] = [];
  const server = await startDeltaAdsServer({
    host: '127.0.0.1',
    port: 0,
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: () => Promise.resolve('not used here'),
    resourcesFor: () => undefined,
    services: [
      createCertificateService({
        ca,
        authenticate: (token) =>
          tokens.review(token, ISTIO_CA_AUDIENCE, (ns, name) =>
            PODS.find((p) => p.namespace === ns && p.name === name) ? `uid-${name}` : undefined,
          ),
        pods: () => PODS,
        onRefused: (_code, reason) => refused.push(reason),
      }),
    ],
  });
  t.after(() => server.close());
  const Client = makeGenericClientConstructor(certificateServiceDefinition, 'IstioCertificateService');
  const client = new Client(server.address, credentials.createSsl(Buffer.from(ca.rootPem)));
  t.after(() => {
    client.close();
  });
  const call: Call = (request, token) =>
    new Promise((resolve) => {
      const metadata = new Metadata();
      if (token) metadata.set('authorization', `Bearer ${token}`);
      const method = (client as unknown as Record<string, UnaryMethod>)['CreateCertificate'];
      method?.call(client, request, metadata, (err, res) => {
        resolve(err ? { code: err.code, details: err.details } : { chain: res?.certChain ?? [] });
      });
    });
  const tokenFor = (p: AuthorizerPod) =>
    tokens.issue(boundPodOf(p), { audience: ISTIO_CA_AUDIENCE, expirationSeconds: 3600 });
  return { ca, call, tokenFor, refused, address: `https://${server.address}` };
}

const request = async (san: string, impersonate?: string): Promise<IstioCertificateRequest> => ({
  csr: (await createCsr(san)).csrPem,
  validityDuration: 3600,
  ...(impersonate ? { metadata: { fields: { ImpersonatedIdentity: { stringValue: impersonate } } } } : {}),
});

const leafOf = (answer: Awaited<ReturnType<Call>>): string | undefined => {
  if (!('chain' in answer)) return `refused ${String(answer.code)}`;
  const id = identityOfCertificate(new X509Certificate(answer.chain[0] ?? ''));
  return id ? spiffe(id.namespace, id.serviceAccount) : undefined;
};

describe('the gRPC CA (IstioCertificateService on the delta ADS server)', () => {
  it("signs the caller's identity, whatever the CSR names, the root last", async (t) => {
    const { ca, call, tokenFor } = await setUp(t);
    const answer = await call(await request(spiffe('kube-system', 'admin')), await tokenFor(HTTPBIN_1));
    assert.equal(leafOf(answer), spiffe('default', 'httpbin'));
    assert.ok('chain' in answer);
    assert.equal(answer.chain.length, 2);
    assert.equal(answer.chain.at(-1), ca.rootPem, 'the root is last (caclient.rs: chain.last() is the root)');
    const leaf = new X509Certificate(answer.chain[0] ?? '');
    assert.ok(leaf.verify(new X509Certificate(ca.rootPem).publicKey), 'the leaf is signed by the root');
    const hours = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 3_600_000;
    // The CA backdates notBefore a minute (clock skew), so an hour asked is a little over one.
    assert.ok(hours >= 1 && hours < 1.1, `validity_duration 3600 s is honoured (got ${String(hours)} h)`);
  });

  it('lets istio-system/ztunnel impersonate an identity with a pod on its node only', async (t) => {
    const { call, tokenFor, refused } = await setUp(t);
    const ztunnel = await tokenFor(ZTUNNEL_1);
    const ask = async (token: string, ns: string, sa: string) =>
      call(await request(spiffe(ns, sa), spiffe(ns, sa)), token);
    assert.equal(leafOf(await ask(ztunnel, 'default', 'httpbin')), spiffe('default', 'httpbin'));
    // istiod answers a refused impersonation Unauthenticated, opaque (server.go 101-106).
    const expected = {
      code: status.UNAUTHENTICATED,
      details: 'request impersonation authentication failure',
    };
    assert.deepEqual(await ask(ztunnel, 'default', 'other'), expected, 'its pod runs on node-2');
    assert.deepEqual(await ask(ztunnel, 'kube-system', 'admin'), expected, 'no such pod');
    assert.deepEqual(
      await ask(await tokenFor(HTTPBIN_1), 'istio-system', 'ztunnel'),
      expected,
      'not a node account',
    );
    assert.match(refused.join('\n'), /no instance of default\/other on node node-1/);
  });

  it('refuses no token or a bad one UNAUTHENTICATED, a bad CSR or TTL INVALID_ARGUMENT', async (t) => {
    const { call, tokenFor } = await setUp(t);
    const good = await request(spiffe('default', 'httpbin'));
    assert.equal(((await call(good)) as { code: status }).code, status.UNAUTHENTICATED, 'no token');
    assert.equal(((await call(good, 'not-a-jwt')) as { code: status }).code, status.UNAUTHENTICATED);
    const token = await tokenFor(HTTPBIN_1);
    const invalid = async (r: IstioCertificateRequest, why: string) => {
      assert.equal(((await call(r, token)) as { code: status }).code, status.INVALID_ARGUMENT, why);
    };
    await invalid({ csr: '', validityDuration: 0 }, 'no CSR');
    await invalid({ csr: '-----BEGIN CERTIFICATE REQUEST-----\ngarbage\n', validityDuration: 0 }, 'garbage');
    await invalid({ ...good, validityDuration: 1e9 }, 'over the maximum TTL');
    // A bad CSR without a token is refused for the token first, as istiod authenticates first.
    assert.equal(
      ((await call({ csr: 'x', validityDuration: 0 })) as { code: status }).code,
      status.UNAUTHENTICATED,
    );
    assert.equal(leafOf(await call({ ...good, validityDuration: 0 }, token)), spiffe('default', 'httpbin'));
  });

  it("is what our ztunnel's CA client asks with protocol grpc: impersonation, a refusal kept apart from the CA being away", async (t) => {
    const { ca, tokenFor, address } = await setUp(t);
    const token = await tokenFor(ZTUNNEL_1);
    const client = createCaClient({
      address,
      rootPem: ca.rootPem,
      token: () => token,
      impersonate: true,
      protocol: 'grpc',
      clusterId: 'Kubernetes',
    });
    const cert = await client({ namespace: 'default', serviceAccount: 'httpbin' });
    assert.equal(cert.spiffeId, spiffe('default', 'httpbin'));
    assert.equal(cert.rootPem, ca.rootPem);
    const refusal = await client({ namespace: 'default', serviceAccount: 'other' }).catch((e: unknown) => e);
    assert.match(String(refusal), /answered 40[13]: (UNAUTHENTICATED|PERMISSION_DENIED)/);
    assert.equal(isTransientCaError(refusal), false, 'a refusal is not retried');
    const away = createCaClient({
      address: 'https://127.0.0.1:1',
      rootPem: ca.rootPem,
      token: () => token,
      impersonate: true,
      protocol: 'grpc',
    });
    const unreachable = await away({ namespace: 'default', serviceAccount: 'httpbin' }).catch(
      (e: unknown) => e,
    );
    assert.match(String(unreachable), /UNAVAILABLE/);
    assert.equal(isTransientCaError(unreachable), true, 'the CA away is retried');
  });

  it("sends the token and the cluster id as istio/ztunnel's caclient does (authorization, clusterid)", async (t) => {
    const ca = await createCertificateAuthority();
    const serving = await ca.issueServing({ dns: [], ips: ['127.0.0.1'] });
    const seen: Record<string, unknown>[] = [];
    const address = await startBareGrpcServer(t, serving, (server) => {
      server.addService(certificateServiceDefinition, {
        CreateCertificate: (
          call: ServerUnaryCall<IstioCertificateRequest, IstioCertificateResponse>,
          callback: sendUnaryData<IstioCertificateResponse>,
        ) => {
          seen.push({
            authorization: call.metadata.get('authorization')[0],
            clusterid: call.metadata.get('clusterid')[0],
            impersonated: call.request.metadata?.fields?.['ImpersonatedIdentity']?.stringValue,
          });
          callback({ code: status.UNAUTHENTICATED, details: 'recorded' });
        },
      });
    });
    const client = createCaClient({
      address: `https://${address}`,
      rootPem: ca.rootPem,
      token: () => 'the-token',
      impersonate: true,
      protocol: 'grpc',
      clusterId: 'Kubernetes',
    });
    await assert.rejects(
      client({ namespace: 'default', serviceAccount: 'httpbin' }),
      /answered 401: UNAUTHENTICATED: recorded/,
    );
    assert.deepEqual(seen, [
      {
        authorization: 'Bearer the-token',
        clusterid: 'Kubernetes',
        impersonated: spiffe('default', 'httpbin'),
      },
    ]);
  });
});
