import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

/** go-httpbin caps /delay at 10 s (httpbin.go maxDuration default). */
export const MAX_DELAY_S = 10;

export interface RouteContext {
  hostname: string;
  /** Calibration mode: /fault/reset and /fault/close are served. */
  faults: boolean;
  /** Aborted when the client goes away (a /delay request then answers nothing). */
  readonly signal: AbortSignal;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

type Reply = { status: number; body: string; contentType: string } | { fault: 'reset' | 'close' };

const json = (status: number, value: unknown): Reply => ({
  status,
  body: `${JSON.stringify(value, null, 2)}\n`,
  contentType: 'application/json; charset=utf-8',
});
const text = (status: number, body: string): Reply => ({
  status,
  body,
  contentType: 'text/plain; charset=utf-8',
});

function requestInfo(req: IncomingMessage): Record<string, unknown> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'httpbin'}`);
  return {
    args: Object.fromEntries(url.searchParams),
    headers: req.headers,
    origin: req.socket.remoteAddress,
    url: url.toString(),
  };
}

/**
 * The go-httpbin routes the experiments use: `/status/:code` (418 is the ASM test's target, with
 * go-httpbin's teapot body), `/delay/:seconds` (0-10, fractional allowed), `/get`, `/hostname`.
 */
export function route(req: IncomingMessage, context: RouteContext): Reply | Promise<Reply> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const status = /^\/status\/(\d{3})$/.exec(path);
  if (status) {
    const code = Number(status[1]);
    if (code < 100 || code > 599) return text(400, `invalid status code ${String(code)}\n`);
    return code === 418 ? text(418, "I'm a teapot!") : text(code, '');
  }
  const delay = /^\/delay\/([0-9.]+)$/.exec(path);
  if (delay) {
    const seconds = Number(delay[1]);
    if (!Number.isFinite(seconds) || seconds > MAX_DELAY_S)
      return text(400, `invalid delay ${String(delay[1])}\n`);
    return context.sleep(seconds * 1000, context.signal).then(() => json(200, requestInfo(req)));
  }
  if (path === '/get') return json(200, requestInfo(req));
  // Calibration faults: a TCP RST instead of a response, or a clean close without one (EOF).
  if (context.faults && path === '/fault/reset') return { fault: 'reset' };
  if (context.faults && path === '/fault/close') return { fault: 'close' };
  if (path === '/hostname') return json(200, { hostname: context.hostname });
  return text(404, `${STATUS_CODES[404] ?? 'Not Found'}\n`);
}

export function writeReply(res: ServerResponse, reply: Reply, closeConnection: boolean): void {
  if ('fault' in reply) {
    if (reply.fault === 'reset') res.socket?.resetAndDestroy();
    else res.socket?.end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': reply.contentType };
  // Shutting down: like Go's http.Server.Shutdown, no more keep-alive after the in-flight response.
  if (closeConnection) headers['connection'] = 'close';
  res.writeHead(reply.status, headers).end(reply.body);
}
