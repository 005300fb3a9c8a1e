// Runs inside a pod's network namespace (nsenter --net=<the pod's namespace>) for as long as ztunnel
// serves the pod, with an IPC channel to it: connects to the app for each request and sends the
// connected socket back (SCM_RIGHTS underneath Node's IPC), or the connect's error. Upstream ztunnel
// makes its inbound connection to the app from inside the pod's namespace, with mark 1337 so that
// istio-cni's rules let it through (istio/ztunnel src/proxy/inbound.rs, src/inpod/config.rs); a
// connection to the pod's own address from inside goes out over lo, which those rules accept
// (`-A ISTIO_OUTPUT ! -d 127.0.0.1/32 -o lo -j ACCEPT`, mesh/node-agent/inpod-capture.ts), so no
// mark is needed here. From ztunnel's own namespace the same connection would enter the pod from
// outside and be redirected back to ztunnel's :15006.
import { connect } from 'node:net';
import type { ConnectReply, ConnectRequest } from './netns-connector.ts';

process.on('message', (raw) => {
  const request = raw as ConnectRequest;
  const socket = connect({ host: request.host, port: request.port });
  socket.once('error', (err: NodeJS.ErrnoException) => {
    process.send?.({ id: request.id, code: err.code ?? 'EIO', message: err.message } satisfies ConnectReply);
  });
  socket.once('connect', () => {
    // The app speaks only once asked; nothing is read here before the socket leaves.
    socket.pause();
    process.send?.({ id: request.id } satisfies ConnectReply, socket);
  });
});
process.once('disconnect', () => process.exit(0));
