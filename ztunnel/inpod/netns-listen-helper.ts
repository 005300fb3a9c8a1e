// Run inside a pod's network namespace (nsenter --net=<the pod's namespace>) by ztunnel, with an IPC
// channel to it: binds the listening sockets ztunnel asks for there and sends each one back
// (SCM_RIGHTS underneath Node's IPC), then exits. The sockets stay in the pod's namespace: upstream
// ztunnel creates its in-pod listeners the same way, from a thread that has entered the namespace
// (istio/ztunnel src/inpod/netns.rs InpodNetns::run), because a process cannot bind an address
// that lives in another namespace.
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import type { ListenReply, ListenRequest } from './netns-listeners.ts';

function bind(host: string, port: number, backlog: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port, backlog, reusePort: true }, () => {
      resolve(server);
    });
  });
}

function send(reply: ListenReply, server?: Server): Promise<void> {
  return new Promise((resolve) => {
    // The handle is duplicated into ztunnel; ours closes once it has been sent.
    process.send?.(reply, server, () => {
      server?.close();
      resolve();
    });
  });
}

process.once('message', (raw) => {
  const request = raw as ListenRequest;
  void (async () => {
    for (const port of request.ports) {
      try {
        await send({ port }, await bind(request.host, port, request.backlog));
      } catch (err) {
        await send({ port, error: err instanceof Error ? err.message : String(err) });
      }
    }
    process.disconnect();
  })();
});
