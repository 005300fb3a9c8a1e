// istiod's readiness endpoint: GET /ready on its HTTP port 8080, which the chart's readinessProbe
// polls (istio/istio pilot/pkg/bootstrap/server.go istiodReadyHandler: 503 while any readiness probe
// fails, else 200; manifests/charts/istio-control/istio-discovery deployment.yaml). Here it answers
// 200 only once every start-up step is done, the istio-ca-root-cert ConfigMaps included: proxies
// mount that ConfigMap, so a pod started before it exists waits in ContainerCreating.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const READINESS_PORT = 8080;
export const READINESS_PATH = '/ready';

export interface ReadinessServer {
  /** host:port it listens on. */
  address: string;
  /** The step the 503 names while not ready. */
  setWaitingFor(step: string): void;
  /** From now on /ready answers 200. */
  markReady(): void;
  close(): Promise<void>;
}

export async function startReadinessServer(options: {
  host: string;
  port: number;
  /** The first step the 503 names. */
  waitingFor: string;
}): Promise<ReadinessServer> {
  let waitingFor: string | undefined = options.waitingFor;
  const server = createServer((req, res) => {
    if (req.url !== READINESS_PATH) {
      res.writeHead(404).end(`only GET ${READINESS_PATH}\n`);
      return;
    }
    if (waitingFor === undefined) res.writeHead(200).end('ready\n');
    else res.writeHead(503).end(`not ready: waiting for ${waitingFor}\n`);
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    address: `${options.host}:${String(port)}`,
    setWaitingFor(step) {
      waitingFor = step;
    },
    markReady() {
      waitingFor = undefined;
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
