import { requiredEnv } from '../../lib/required-env.ts';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { Client, credentials, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { isTransientNetworkError, isTransientStatus } from '../startup-retry.ts';
import type { WorkloadCertificate } from './ca.ts';
import { CREATE_CERTIFICATE_PATH } from './ca-server.ts';
import { certificateRequestCodec, certificateResponseCodec } from './certificate-protos.ts';
import type { IstioCertificateRequest } from './certificate-protos.ts';
import { createCsr } from './csr.ts';
import { formatSpiffeId, identityOfCertificate } from './spiffe.ts';

export type RequestCertificate = (identity: {
  namespace: string;
  serviceAccount: string;
}) => Promise<WorkloadCertificate>;

export interface CaClientOptions {
  /** https://host:port (CA_ADDRESS). */
  address: string;
  /**
   * How the CA is asked: `json` (ours: an HTTPS POST of the request as JSON, mesh/pki/ca-server.ts)
   * or `grpc` (istiod's istio.v1.auth.IstioCertificateService/CreateCertificate on 15012, as
   * istio/ztunnel asks it: src/identity/caclient.rs 62-122). Default json.
   */
  protocol?: 'json' | 'grpc';
  /**
   * gRPC: the `clusterid` header istio/ztunnel sends beside the token (src/identity/auth.rs 28-40).
   * istiod's CA authenticates the token, and authorizes an impersonation, in that cluster: without
   * it, "no node authorizer for cluster" (security/pkg/server/ca/node_auth.go).
   */
  clusterId?: string;
  /** The mesh root the CA's serving certificate must chain to (CA_ROOT_CA). */
  rootPem: string;
  /** The service-account token, read afresh per request (the kubelet rotates the file). */
  token(): string;
  /**
   * ztunnel's mode: every request names the wanted identity as ImpersonatedIdentity, and the answer
   * must carry exactly that identity (src/identity/caclient.rs). Off: the CA signs the caller's own.
   */
  impersonate: boolean;
  trustDomain?: string;
  /** Requested lifetime (ztunnel's SECRET_TTL, 24 h). */
  validitySeconds?: number;
  /** A request whose socket stays silent this long fails with ETIMEDOUT (default 10 s). */
  requestTimeoutMs?: number;
}

/**
 * The CA answered, with a status other than 200 (JSON) or OK (gRPC): `status` (HTTP's, a gRPC code
 * as its HTTP equivalent) says whether asking again may help.
 */
export class CaAnswerError extends Error {
  readonly status: number;
  constructor(address: string, status: number, text: string) {
    super(`CA ${address} answered ${String(status)}: ${text}`);
    this.name = 'CaAnswerError';
    this.status = status;
  }
}

/**
 * A gRPC status as the HTTP status our retry split reads: the codes pilot-agent retries
 * (istio/istio pkg/security/retry.go: Canceled, DeadlineExceeded, ResourceExhausted, Aborted,
 * Internal, Unavailable) as 503, the others (a refusal) as 400/401/403.
 */
function httpStatusOf(code: grpcStatus): number {
  const retried = [
    grpcStatus.CANCELLED,
    grpcStatus.DEADLINE_EXCEEDED,
    grpcStatus.RESOURCE_EXHAUSTED,
    grpcStatus.ABORTED,
    grpcStatus.INTERNAL,
    grpcStatus.UNAVAILABLE,
  ];
  if (retried.includes(code)) return 503;
  if (code === grpcStatus.UNAUTHENTICATED) return 401;
  if (code === grpcStatus.PERMISSION_DENIED) return 403;
  return 400;
}

/**
 * Whether a failed certificate request may succeed if repeated: the CA unreachable (refused, reset,
 * unresolved, silent) or answering 5xx/429. A 4xx is a refusal (the token, the identity, the node
 * authorizer) and so is a certificate that does not verify: asking again gets the same answer.
 * pilot-agent retries the same split of gRPC codes (istio/istio pkg/security/retry.go).
 */
export function isTransientCaError(err: unknown): boolean {
  if (err instanceof CaAnswerError) return isTransientStatus(err.status);
  return isTransientNetworkError(err);
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

function post(options: CaClientOptions, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${options.address}${CREATE_CERTIFICATE_PATH}`,
      {
        method: 'POST',
        ca: options.rootPem,
        minVersion: 'TLSv1.3',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token()}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    req.setTimeout(timeoutMs, () => {
      req.destroy(
        Object.assign(new Error(`no answer from CA ${options.address} within ${String(timeoutMs)} ms`), {
          code: 'ETIMEDOUT',
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One CreateCertificate call over gRPC (TLS to the mesh root, the token as bearer metadata). */
function createCertificateGrpc(
  options: CaClientOptions,
  client: Client,
  body: IstioCertificateRequest,
): Promise<string[]> {
  const md = new Metadata();
  md.set('authorization', `Bearer ${options.token()}`);
  if (options.clusterId) md.set('clusterid', options.clusterId);
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      CREATE_CERTIFICATE_PATH,
      (value: IstioCertificateRequest) => certificateRequestCodec.encode(value),
      (bytes: Buffer) => certificateResponseCodec.decode(bytes),
      body,
      md,
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, response?: { certChain: string[] }) => {
        // Unreachable (UNAVAILABLE) and silent (DEADLINE_EXCEEDED) are retried, as refusals are not.
        if (err)
          reject(
            new CaAnswerError(
              options.address,
              httpStatusOf(err.code),
              `${grpcStatus[err.code]}: ${err.details}`,
            ),
          );
        else resolve(response?.certChain ?? []);
      },
    );
  });
}

/** The chain the CA signs for one CSR, asked the way `options.protocol` says. */
function certificateAsker(options: CaClientOptions): (body: IstioCertificateRequest) => Promise<string[]> {
  if (options.protocol === 'grpc') {
    const client = new Client(
      new URL(options.address).host,
      credentials.createSsl(Buffer.from(options.rootPem)),
    );
    return (body) => createCertificateGrpc(options, client, body);
  }
  return async (body) => {
    const res = await post(
      options,
      JSON.stringify({
        csr: body.csr,
        validityDuration: body.validityDuration,
        ...(body.metadata ? { metadata: { ImpersonatedIdentity: spiffeIdOf(body) } } : {}),
      }),
    );
    if (res.status !== 200) throw new CaAnswerError(options.address, res.status, res.text);
    return (JSON.parse(res.text) as { certChain?: string[] }).certChain ?? [];
  };
}

const spiffeIdOf = (body: IstioCertificateRequest): string =>
  body.metadata?.fields?.['ImpersonatedIdentity']?.stringValue ?? '';

/** Fetches (and caches per identity) workload certificates from the CA with a CSR per identity. */
export function createCaClient(options: CaClientOptions): RequestCertificate {
  const ask = certificateAsker(options);
  const trustDomain = options.trustDomain ?? 'cluster.local';
  const cache = new Map<string, Promise<WorkloadCertificate>>();
  const fetchOne = async (id: {
    namespace: string;
    serviceAccount: string;
  }): Promise<WorkloadCertificate> => {
    const identity = { trustDomain, ...id };
    const spiffeId = formatSpiffeId(identity);
    const { csrPem, keyPem } = await createCsr(spiffeId);
    const certChain = await ask({
      csr: csrPem,
      validityDuration: options.validitySeconds ?? 24 * 3600,
      ...(options.impersonate
        ? { metadata: { fields: { ImpersonatedIdentity: { stringValue: spiffeId } } } }
        : {}),
    });
    const [certPem, ...chain] = certChain;
    const rootPem = chain.at(-1);
    if (!certPem || !rootPem) throw new Error(`CA ${options.address} answered without a chain`);
    const leaf = new X509Certificate(certPem);
    const got = identityOfCertificate(leaf);
    if (options.impersonate && (!got || formatSpiffeId(got) !== spiffeId))
      throw new Error(`expected identity ${spiffeId}, got ${got ? formatSpiffeId(got) : 'none'}`);
    return {
      identity: got ?? identity,
      spiffeId: got ? formatSpiffeId(got) : spiffeId,
      certPem,
      keyPem,
      rootPem,
      notAfter: new Date(leaf.validTo),
    };
  };
  return (id) => {
    const key = `${id.namespace}/${id.serviceAccount}`;
    let pending = cache.get(key);
    if (!pending) {
      pending = fetchOne(id);
      pending.catch(() => cache.delete(key));
      cache.set(key, pending);
    }
    return pending;
  };
}

/**
 * The client as ztunnel and pilot-agent configure it from their environment: CA_ADDRESS, the root
 * at CA_ROOT_CA and the token at AUTH_TOKEN (ztunnel's names; the chart mounts the istio-ca-root-cert
 * ConfigMap and a projected istio-ca token there). Throws a message naming what is missing.
 */
export function caClientFromEnv(
  env: NodeJS.ProcessEnv,
  mode: { impersonate: boolean; protocol?: 'json' | 'grpc'; clusterId?: string },
): RequestCertificate {
  const need = (variable: string): string => requiredEnv(env, variable);
  const address = need('CA_ADDRESS');
  if (!address.startsWith('https://'))
    throw new Error(
      `Expected CA_ADDRESS to be an https:// URL (istiod's CA speaks TLS), got ${JSON.stringify(address)}`,
    );
  const rootFile = need('CA_ROOT_CA');
  const tokenFile = need('AUTH_TOKEN');
  let rootPem: string;
  try {
    rootPem = readFileSync(rootFile, 'utf8');
  } catch (err) {
    throw new Error(
      `Expected CA_ROOT_CA to name a readable PEM file, got ${JSON.stringify(rootFile)}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return createCaClient({
    address,
    rootPem,
    token: () => readFileSync(tokenFile, 'utf8').trim(),
    impersonate: mode.impersonate,
    ...(mode.protocol ? { protocol: mode.protocol } : {}),
    ...(mode.clusterId ? { clusterId: mode.clusterId } : {}),
  });
}
