import type { ClientHttp2Session } from 'node:http2';

/**
 * After a GOAWAY, Envoy (and ztunnel's own pool) open no new stream on the connection but keep the
 * streams it has until they end (envoyproxy/envoy#34897: the inner HTTP/1.1 connections keep their
 * tunnels until the old ztunnel's deadline), and only then close it. Node's client instead answers
 * every NO_ERROR GOAWAY by calling session.close() (lib/internal/http2/core.js `onGoawayData`), which
 * sends a GOAWAY of its own with last stream id 0. A server on the h2 crate (istio/ztunnel) then
 * fails every stream above 0, i.e. all of them: measured with istio/ztunnel 1.28.1
 * (`npm run ztunnel-conformance`), the tunnels ended 8 ms after SIGTERM instead of at the deadline.
 * And h2's graceful shutdown sends two GOAWAYs (last stream 2^31-1, then, after a PING, the real
 * last), so swallowing only the first is not enough. Installed when the session opens: the close()
 * that follows each NO_ERROR GOAWAY is swallowed; after the first, the session is closed here once
 * its last stream is done.
 */
export function keepStreamsAfterGoaway(session: ClientHttp2Session, liveStreams: () => number): void {
  const close = session.close.bind(session);
  let goawayClose = false;
  session.close = (callback?: () => void) => {
    if (!goawayClose) {
      close(callback);
      return;
    }
    goawayClose = false;
    if (callback) session.once('close', callback);
  };
  const closeWhenIdle = (): void => {
    if (session.closed || session.destroyed) return;
    if (liveStreams() > 0) {
      session.once('stream-released', closeWhenIdle);
      return;
    }
    close();
  };
  let first = true;
  session.on('goaway', (code: number) => {
    if (code !== 0) return; // Node destroys the session: streams end with the error, as in Envoy
    goawayClose = true; // Node calls close() right after emitting 'goaway'
    if (first) {
      first = false;
      closeWhenIdle();
    }
  });
}
