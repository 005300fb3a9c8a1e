// The pods' applications behind the HBONE peer (or reached directly in plain mode): plain HTTP/1.1
// servers on <pod>:8080 answering `pod=<ip> path=<path>`, except that the first request for a path
// under /hold/ (on any pod) waits until the test releases it: a request in flight, for as long as a
// test needs one, without timers. A retry of it (its second arrival) is answered at once.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createChanges } from './observed.ts';
import type { Observable } from './observed.ts';

export const APP_PORT = 8080;

export interface AppArrival {
  pod: string;
  path: string;
  held: boolean;
  /** The connection it came on has closed (the proxy cancelled it, or the answer was sent and closed). */
  closed: boolean;
}

export interface HeldApps extends Observable {
  arrivals: readonly AppArrival[];
  /** How many times `path` reached an app. */
  count(path: string): number;
  /** Answers the held request for `path` 200. */
  release(path: string): void;
  close(): Promise<void>;
}

export async function startHeldApps(pods: readonly string[]): Promise<HeldApps> {
  const changes = createChanges();
  const arrivals: AppArrival[] = [];
  const held = new Map<string, { pod: string; res: ServerResponse }>();
  const bySocket = new WeakMap<Socket, AppArrival[]>();
  const answer = (pod: string, path: string, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`pod=${pod} path=${path}\n`);
  };
  const servers: Server[] = [];
  for (const pod of pods) {
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      const hold = path.startsWith('/hold/') && !arrivals.some((a) => a.path === path);
      const arrival: AppArrival = { pod, path, held: hold, closed: false };
      arrivals.push(arrival);
      const onSocket = bySocket.get(req.socket);
      if (onSocket) onSocket.push(arrival);
      else {
        // One listener per connection: the proxy sends many requests on one (keep-alive).
        const list = [arrival];
        bySocket.set(req.socket, list);
        req.socket.once('close', () => {
          for (const a of list) a.closed = true;
          changes.notify();
        });
      }
      if (hold) held.set(path, { pod, res });
      else answer(pod, path, res);
      changes.notify();
    });
    // The proxy keeps upstream connections for an hour; so does this app (no keep-alive race).
    server.keepAliveTimeout = 3_600_000;
    server.listen(APP_PORT, pod);
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    arrivals,
    onChange: changes.onChange,
    count: (path) => arrivals.filter((a) => a.path === path).length,
    release(path) {
      const h = held.get(path);
      if (!h) throw new Error(`no request for ${path} is held`);
      held.delete(path);
      answer(h.pod, path, h.res);
    },
    async close() {
      await Promise.all(
        servers.map(async (s) => {
          s.closeAllConnections();
          s.close();
          await once(s, 'close');
        }),
      );
    },
  };
}
