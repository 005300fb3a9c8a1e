import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import type { CertificateAuthority } from './ca.ts';
import { readCsr } from './csr.ts';
import { checkImpersonation } from './node-authorizer.ts';
import type { AuthorizerPod } from './node-authorizer.ts';
import type { TokenCaller } from './service-account-token.ts';

/**
 * The CA as istiod serves it on :15012 (security/pkg/server/ca/server.go, CreateCertificate), over
 * HTTPS with JSON instead of gRPC: POST CREATE_CERTIFICATE_PATH with the request's fields
 * `{csr, validityDuration, metadata: {ImpersonatedIdentity}}` and `authorization: Bearer <token>`,
 * answered `{certChain: [leaf, root]}` (root last). The caller is authenticated by its
 * service-account token (audience istio-ca); the certificate names the caller's identity, or the
 * impersonated one when the node authorizer allows it; the key stays with the caller.
 */
export const CREATE_CERTIFICATE_PATH = '/istio.v1.auth.IstioCertificateService/CreateCertificate';
/** The names istiod's serving certificate carries (its Service), which clients verify. */
export const ISTIOD_HOSTNAMES = ['istiod.istio-system.svc', 'istiod.istio-system.svc.cluster.local'];

export interface CaServer {
  url: string;
  close(): Promise<void>;
}

export interface CaServerOptions {
  ca: CertificateAuthority;
  /** TokenReview: the caller, or why the token is refused. */
  authenticate(token: string): Promise<TokenCaller | string>;
  /** The pods the node authorizer reads (the control plane's informer). */
  pods(): readonly AuthorizerPod[];
  /** Refusals, with the reason the caller is not told (istiod logs them the same way). */
  onRefused?(status: number, reason: string): void;
  host?: string;
  port?: number;
}

const MAX_BODY_BYTES = 64 * 1024;
const DAY_S = 24 * 3600;
/** istiod: DEFAULT_WORKLOAD_CERT_TTL 24 h, MAX_WORKLOAD_CERT_TTL 90 days. */
const MAX_TTL_S = 90 * DAY_S;

/** A request answered with an error status: what the caller is told, and the reason logged. */
class Refusal extends Error {
  readonly status: number;
  readonly answer: string;
  readonly reason: string;
  constructor(status: number, answer: string, reason = answer) {
    super(reason);
    this.status = status;
    this.answer = answer;
    this.reason = reason;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Refusal(413, `body over ${String(MAX_BODY_BYTES)} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseRequest(text: string): { csr: unknown; ttlS: number; impersonate: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Refusal(400, 'the body is not JSON; send {"csr": "<PEM>", "validityDuration": <seconds>}');
  }
  if (typeof body !== 'object' || body === null) throw new Refusal(400, 'the body must be a JSON object');
  const { csr, validityDuration, metadata } = body as Record<string, unknown>;
  const impersonate = (metadata as Record<string, unknown> | undefined)?.['ImpersonatedIdentity'];
  if (impersonate !== undefined && typeof impersonate !== 'string')
    throw new Refusal(400, 'metadata.ImpersonatedIdentity must be a string');
  // istiod: a missing or non-positive duration gets the default; longer than the maximum is refused.
  const ttlS = typeof validityDuration === 'number' && validityDuration > 0 ? validityDuration : DAY_S;
  if (ttlS > MAX_TTL_S) throw new Refusal(400, `validityDuration over ${String(MAX_TTL_S)} s`);
  return { csr, ttlS, impersonate: impersonate ?? '' };
}

async function createCertificate(options: CaServerOptions, req: IncomingMessage): Promise<string[]> {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (!token) throw new Refusal(401, 'request authenticate failure', 'no bearer token');
  const body = parseRequest(await readBody(req));
  const caller = await options.authenticate(token);
  if (typeof caller === 'string') throw new Refusal(401, 'request authenticate failure', caller);
  let identity = { namespace: caller.namespace, serviceAccount: caller.serviceAccount };
  if (body.impersonate) {
    const refused = checkImpersonation(caller, body.impersonate, options.pods());
    if (refused) throw new Refusal(401, 'request impersonation authentication failure', refused);
    const [, namespace = '', serviceAccount = ''] =
      /\/ns\/([^/]+)\/sa\/([^/]+)$/.exec(body.impersonate) ?? [];
    identity = { namespace, serviceAccount };
  }
  const publicKey = await readCsr(body.csr);
  if (typeof publicKey === 'string') throw new Refusal(400, publicKey);
  const { certPem } = await options.ca.sign(publicKey, identity, { validityMs: body.ttlS * 1000 });
  return [certPem, options.ca.rootPem];
}

export async function startCaServer(options: CaServerOptions): Promise<CaServer> {
  const host = options.host ?? '127.0.0.1';
  const serving = await options.ca.issueServing({
    dns: ISTIOD_HOSTNAMES,
    // On loopback the clients dial the address (no cluster DNS); a wildcard bind has none to name.
    ips: isIP(host) && host !== '0.0.0.0' && host !== '::' ? [host] : [],
  });
  const answer = (res: ServerResponse, err: unknown): void => {
    const refusal = err instanceof Refusal ? err : new Refusal(500, 'CSR signing error', String(err));
    options.onRefused?.(refusal.status, refusal.reason);
    if (!res.headersSent) res.writeHead(refusal.status, { connection: 'close' }).end(refusal.answer);
  };
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    req.on('error', () => undefined); // a client gone mid-body: nothing to answer
    if (req.url !== CREATE_CERTIFICATE_PATH || req.method !== 'POST') {
      answer(
        res,
        new Refusal(req.url === CREATE_CERTIFICATE_PATH ? 405 : 404, 'POST to CreateCertificate only'),
      );
      return;
    }
    createCertificate(options, req).then(
      (certChain) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ certChain })),
      (err: unknown) => {
        answer(res, err);
      },
    );
  });
  // TLS handshakes that fail (plaintext, garbage) end the socket; nothing reaches the event loop.
  server.on('tlsClientError', () => undefined);
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  return {
    url: `https://${host}:${String((server.address() as AddressInfo).port)}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
