import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { asRefusal, signCertificateRequest } from './certificate-request.ts';
import type { CertificateRequest, CertificateSigner, RefusalCode } from './certificate-request.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'CA (istiod)');

/**
 * The CA as istiod serves it on :15012 (security/pkg/server/ca/server.go, CreateCertificate), over
 * HTTPS with JSON (the gRPC form, for istio/ztunnel's binary, is certificate-service.ts; both call
 * certificate-request.ts): POST CREATE_CERTIFICATE_PATH with the request's fields
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

export interface CaServerOptions extends CertificateSigner {
  /** Refusals, with the reason the caller is not told (istiod logs them the same way). */
  onRefused?(status: number, reason: string): void;
  host?: string;
  port?: number;
}

const MAX_BODY_BYTES = 64 * 1024;

/** What the HTTP form refuses before the request reaches CreateCertificate's logic. */
class HttpRefusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const HTTP_STATUS: Readonly<Record<RefusalCode, number>> = {
  unauthenticated: 401,
  'invalid-argument': 400,
  internal: 500,
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpRefusal(413, `body over ${String(MAX_BODY_BYTES)} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON body as CreateCertificate's fields (the token comes from the header). */
function parseRequest(text: string, token: string | undefined): CertificateRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpRefusal(400, 'the body is not JSON; send {"csr": "<PEM>", "validityDuration": <seconds>}');
  }
  if (typeof body !== 'object' || body === null) throw new HttpRefusal(400, 'the body must be a JSON object');
  const { csr, validityDuration, metadata } = body as Record<string, unknown>;
  const impersonate = (metadata as Record<string, unknown> | undefined)?.['ImpersonatedIdentity'];
  if (impersonate !== undefined && typeof impersonate !== 'string')
    throw new HttpRefusal(400, 'metadata.ImpersonatedIdentity must be a string');
  return {
    token,
    csr,
    validityDurationS: typeof validityDuration === 'number' ? validityDuration : 0,
    impersonatedIdentity: impersonate ?? '',
  };
}

async function createCertificate(options: CaServerOptions, req: IncomingMessage): Promise<string[]> {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  return signCertificateRequest(options, parseRequest(await readBody(req), token));
}

export async function startCaServer(options: CaServerOptions): Promise<CaServer> {
  const host = options.host ?? '127.0.0.1';
  const serving = await options.ca.issueServing({
    dns: ISTIOD_HOSTNAMES,
    // On loopback the clients dial the address (no cluster DNS); a wildcard bind has none to name.
    ips: isIP(host) && host !== '0.0.0.0' && host !== '::' ? [host] : [],
  });
  const answer = (res: ServerResponse, err: unknown): void => {
    let status: number, text: string, reason: string;
    if (err instanceof HttpRefusal) [status, text, reason] = [err.status, err.message, err.message];
    else {
      const refusal = asRefusal(err);
      [status, text, reason] = [HTTP_STATUS[refusal.code], refusal.answer, refusal.reason];
    }
    options.onRefused?.(status, reason);
    if (!res.headersSent) res.writeHead(status, { connection: 'close' }).end(text);
  };
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    req.on('error', () => undefined); // a client gone mid-body: nothing to answer
    if (req.url !== CREATE_CERTIFICATE_PATH || req.method !== 'POST') {
      answer(
        res,
        new HttpRefusal(req.url === CREATE_CERTIFICATE_PATH ? 405 : 404, 'POST to CreateCertificate only'),
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
