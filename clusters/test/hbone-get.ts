import { once } from 'node:events';
import { openHboneSession, openTunnel } from '../../mesh/hbone/index.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';

/**
 * One HTTP/1.1 GET to a pod through its node's ztunnel, as an ambient-aware gateway sends it: a new
 * mTLS HTTP/2 connection to pod IP:15008, CONNECT to pod IP:port, the request inside. Resolves with
 * the CONNECT status and, on 200, the HTTP status line and body; rejects on a transport error.
 */
export async function hboneGet(options: {
  podIp: string;
  port: number;
  path: string;
  cert: WorkloadCertificate;
  expectedIdentity?: string;
}): Promise<{ connectStatus: number; httpStatus?: number; body?: string }> {
  const session = await openHboneSession({
    host: options.podIp,
    cert: options.cert,
    ...(options.expectedIdentity ? { expectedIdentity: options.expectedIdentity } : {}),
  });
  try {
    const tunnel = await openTunnel(session, `${options.podIp}:${String(options.port)}`);
    if (tunnel.status !== 200) return { connectStatus: tunnel.status };
    tunnel.stream.end(`GET ${options.path} HTTP/1.1\r\nHost: httpbin\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    tunnel.stream.on('data', (c: Buffer) => chunks.push(c));
    await once(tunnel.stream, 'end');
    const text = Buffer.concat(chunks).toString('utf8');
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
    return {
      connectStatus: 200,
      httpStatus: Number(status?.[1] ?? 0),
      body: text.split('\r\n\r\n').slice(1).join('\r\n\r\n'),
    };
  } finally {
    session.destroy();
  }
}
