import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CertificateAuthority, WorkloadCertificate } from './ca.ts';

/**
 * The CA over HTTP on loopback, for ztunnel processes (the control plane hosts it). Simplified from
 * istiod's CA (gRPC CreateCertificate with a CSR): the caller names the identity and receives key and
 * certificate, so the private key crosses the loopback connection. Good enough for a test harness on
 * one machine; not a model of istiod's CSR validation.
 */
export interface CaServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

/** The identity asked for, or what is wrong with the body (answered 400, never thrown). */
function parseIdentityRequest(text: string): { namespace: string; serviceAccount: string } | string {
  let body: unknown;
  try {
    body = JSON.parse(text || '{}');
  } catch {
    return 'the body is not JSON; send {"namespace": "...", "serviceAccount": "..."}';
  }
  const { namespace, serviceAccount } = (body ?? {}) as Record<string, unknown>;
  if (typeof namespace !== 'string' || !namespace || typeof serviceAccount !== 'string' || !serviceAccount)
    return 'namespace and serviceAccount are required (strings)';
  return { namespace, serviceAccount };
}

export async function startCaServer(
  ca: CertificateAuthority,
  host = '127.0.0.1',
  port = 0,
): Promise<CaServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/certificates') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('error', () => undefined); // a client gone mid-body: nothing to answer
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end(`body over ${String(MAX_BODY_BYTES)} bytes`);
        return;
      }
      const body = parseIdentityRequest(Buffer.concat(chunks).toString('utf8'));
      if (typeof body === 'string') {
        res.writeHead(400).end(body);
        return;
      }
      ca.issue({ namespace: body.namespace, serviceAccount: body.serviceAccount }).then(
        (cert) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cert)),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    url: `http://${host}:${String((server.address() as AddressInfo).port)}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Fetches (and caches per identity) workload certificates from a CA server. */
export function createCaClient(
  url: string,
): (identity: { namespace: string; serviceAccount: string }) => Promise<WorkloadCertificate> {
  const cache = new Map<string, Promise<WorkloadCertificate>>();
  return (identity) => {
    const key = `${identity.namespace}/${identity.serviceAccount}`;
    let pending = cache.get(key);
    if (!pending) {
      pending = fetch(`${url}/v1/certificates`, { method: 'POST', body: JSON.stringify(identity) }).then(
        async (res) => {
          if (!res.ok) throw new Error(`CA ${url} answered ${String(res.status)}: ${await res.text()}`);
          const cert = (await res.json()) as WorkloadCertificate & { notAfter: string };
          return { ...cert, notAfter: new Date(cert.notAfter) };
        },
      );
      pending.catch(() => cache.delete(key));
      cache.set(key, pending);
    }
    return pending;
  };
}
