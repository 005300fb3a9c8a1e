import { connect } from 'node:http2';
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2';
import { once } from 'node:events';
import { checkSpiffeServer, mtlsContext } from '../pki/index.ts';
import type { WorkloadCertificate } from '../pki/index.ts';
import { HBONE_PORT } from '../workload.ts';

/** An HTTP/2 connection over mTLS to a ztunnel's HBONE port (pod IP:15008). */
export async function openHboneSession(options: {
  host: string;
  port?: number;
  cert: WorkloadCertificate;
  expectedIdentity?: string;
  localAddress?: string;
  /** SNI naming the identity wanted from a shared (node-address) ztunnel; see identityServerName. */
  servername?: string;
  /** Give up (and destroy the attempt) when TCP + TLS are not done by then; default: no limit. */
  connectTimeoutMs?: number;
}): Promise<ClientHttp2Session> {
  const port = options.port ?? HBONE_PORT;
  const session = connect(`https://${options.host}:${String(port)}`, {
    ...mtlsContext(options.cert),
    checkServerIdentity: checkSpiffeServer(options.expectedIdentity),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    ...(options.servername ? { servername: options.servername } : {}),
  });
  session.on('error', () => {
    // Reported to the caller through `connect`/`request`; a late error only ends the session.
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout =
    options.connectTimeoutMs === undefined
      ? new Promise<never>(() => undefined)
      : new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            session.destroy();
            reject(new Error(`connect timeout after ${String(options.connectTimeoutMs)} ms`));
          }, options.connectTimeoutMs);
        });
  try {
    await Promise.race([
      once(session, 'connect'),
      once(session, 'error').then(([err]) => {
        throw err as Error;
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
  return session;
}

export interface Tunnel {
  stream: ClientHttp2Stream;
  status: number;
}

/**
 * One HBONE tunnel: CONNECT with `:authority` = target pod IP:port and the headers ztunnel sends
 * (baggage, forwarded, traceparent). Resolves with the response status (200 = the target's app
 * accepted the TCP connection); the stream is the byte pipe.
 */
export async function openTunnel(
  session: ClientHttp2Session,
  authority: string,
  headers: Record<string, string> = {},
): Promise<Tunnel> {
  const stream = session.request(
    { ':method': 'CONNECT', ':authority': authority, ...headers },
    { endStream: false },
  );
  const [responseHeaders] = (await Promise.race([
    once(stream, 'response'),
    once(stream, 'close').then(() => {
      throw new Error(
        `CONNECT ${authority} closed before a response (RST_STREAM code ${String(stream.rstCode)})`,
      );
    }),
  ])) as [Record<string, unknown>];
  return { stream, status: Number(responseHeaders[':status']) };
}
