// The node agent's end of the CNI plugin (istio/istio cni/pkg/nodeagent/cni-watcher.go): an HTTP
// server on a Unix socket taking POST /cmdadd with a CNIPluginAddEvent, answering once the pod is
// enrolled (200) or why it could not be (400 for a body that is not one, 500 otherwise, the reason
// in the body, which the plugin hands to the runtime).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { CNI_ADD_EVENT_PATH } from './cni-plugin.ts';

/** What the plugin sends (upstream's CNIPluginAddEvent; IPs as the CNI result gives them, CIDR). */
export interface CniAddEvent {
  netns: string;
  podName: string;
  podNamespace: string;
  /** The pod's IPv4 addresses without their prefix length. */
  ips: string[];
}

/** The event from the plugin's JSON, or a reason it is not one. */
export function parseCniAddEvent(body: string): CniAddEvent | string {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const e = raw as { Netns?: unknown; PodName?: unknown; PodNamespace?: unknown; IPs?: unknown };
  if (typeof e.Netns !== 'string' || e.Netns === '') return 'no Netns';
  if (typeof e.PodName !== 'string' || e.PodName === '') return 'no PodName';
  if (typeof e.PodNamespace !== 'string' || e.PodNamespace === '') return 'no PodNamespace';
  const ips = (Array.isArray(e.IPs) ? e.IPs : [])
    .map((ip: { Address?: unknown }) =>
      typeof ip.Address === 'string' ? ip.Address.split('/')[0] : undefined,
    )
    .filter((ip): ip is string => ip !== undefined && /^\d+\.\d+\.\d+\.\d+$/.test(ip));
  return { netns: e.Netns, podName: e.PodName, podNamespace: e.PodNamespace, ips };
}

const MAX_BODY = 64 * 1024;

export async function startPluginEventServer(
  path: string,
  onAdd: (event: CniAddEvent) => Promise<void>,
): Promise<{ close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const answer = (code: number, text: string): void => {
      res.writeHead(code, { 'content-type': 'text/plain' }).end(text);
    };
    if (req.method !== 'POST' || req.url !== CNI_ADD_EVENT_PATH) {
      answer(404, `only POST ${CNI_ADD_EVENT_PATH}\n`);
      req.resume();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) req.destroy();
    });
    req.on('end', () => {
      const event = parseCniAddEvent(body);
      if (typeof event === 'string') {
        answer(400, `not a CNI add event: ${event}\n`);
        return;
      }
      onAdd(event).then(
        () => {
          answer(200, '');
        },
        (err: unknown) => {
          answer(500, `${err instanceof Error ? err.message : String(err)}\n`);
        },
      );
    });
  });
  await rm(path, { force: true });
  server.listen(path);
  await once(server, 'listening');
  return {
    close: async () => {
      server.close();
      server.closeAllConnections();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
