// One gateway scene for the real-Envoy tests: the test mesh (control plane, gateway pod, two httpbin
// pods), the pods' apps, an HBONE peer on each pod's :15008 where asked, and pilot-agent with Envoy
// as the gateway; plus the HTTP/1.1 client a load generator would be.
import { request } from 'node:http';
import type { ClientRequest } from 'node:http';
import type { TestContext } from 'node:test';
import { startConnectPeer } from './connect-peer.ts';
import type { ConnectPeer } from './connect-peer.ts';
import { startHeldApps } from './held-apps.ts';
import type { HeldApps } from './held-apps.ts';
import { startTestMesh } from './proxy-fixture.ts';
import type { Proxy, TestMesh, TestMeshOptions } from './proxy-fixture.ts';

export interface GatewayScene {
  mesh: TestMesh;
  apps: HeldApps;
  /** By pod (podIps order); undefined where nothing listens on that pod's :15008. */
  peers: (ConnectPeer | undefined)[];
  proxy: Proxy;
}

export interface SceneOptions {
  /** Pods (0, 1) whose :15008 has a peer; default both. */
  peerOn?: number[];
  /** Pods whose app runs; default both. */
  appOn?: number[];
  silentPeers?: boolean;
  metadata?: Record<string, string>;
  /** Gateways, VirtualServices and more Services for the control plane. */
  mesh?: TestMeshOptions;
}

export async function startGatewayScene(
  t: TestContext,
  prefix: string,
  options: SceneOptions = {},
): Promise<GatewayScene> {
  const mesh = await startTestMesh(t, prefix, options.mesh);
  const on = (which: number[] | undefined, i: number): boolean => (which ?? [0, 1]).includes(i);
  const apps = await startHeldApps(mesh.podIps.filter((_, i) => on(options.appOn, i)));
  t.after(() => apps.close());
  const cert = await mesh.cp.ca.issue({ namespace: 'default', serviceAccount: 'httpbin' });
  const peers: (ConnectPeer | undefined)[] = [];
  for (const [i, host] of mesh.podIps.entries()) {
    if (!on(options.peerOn, i)) {
      peers.push(undefined);
      continue;
    }
    const peer = await startConnectPeer({ host, cert, ...(options.silentPeers ? { silent: true } : {}) });
    t.after(() => peer.close());
    peers.push(peer);
  }
  const proxy = await mesh.startProxy(options.metadata ? { metadata: options.metadata } : {});
  return { mesh, apps, peers, proxy };
}

export interface Reply {
  status: number;
  body: string;
}

/** Sends GET `path` on a new connection; the request is handed to `onRequest` (to leave early). */
export function get(ingress: string, path: string, onRequest?: (req: ClientRequest) => void): Promise<Reply> {
  const [host = '', port = ''] = ingress.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port: Number(port), path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
    onRequest?.(req);
  });
}

/** The pod an app answer came from (`pod=<ip> path=...`). */
export const podOf = (reply: Reply): string | undefined => /^pod=(\S+)/.exec(reply.body)?.[1];
