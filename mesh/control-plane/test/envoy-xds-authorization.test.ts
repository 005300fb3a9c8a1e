// The control plane's mTLS xDS port for Envoy (15011) hands a proxy its configuration only when the
// client certificate is the identity of the pod its node names, and that pod is live at that address
// (istiod's checkConnectionIdentity, and one step further: proxy-authorizer.ts). A gRPC client with
// certificates from the control plane's own CA plays the proxy; each refusal must reach the client
// as PERMISSION_DENIED and the control plane's log with its reason.
import assert from 'node:assert/strict';
import type { ClientDuplexStream, ServiceError } from '@grpc/grpc-js';
import { credentials, makeGenericClientConstructor, status } from '@grpc/grpc-js';
import { describe, it } from 'node:test';
import { createLogger, createSystemClock } from '../../../lib/index.ts';
import { ISTIOD_HOSTNAMES } from '../../pki/index.ts';
import { adsService, proxyNodeId, TYPE_URL } from '../../xds/index.ts';
import { struct } from '../../xds/proto-values.ts';
import type { ClusterSource, PodView } from '../cluster-source.ts';
import { startControlPlane } from '../control-plane.ts';

const GATEWAY: PodView = {
  uid: 'uid-gw',
  name: 'istio-ingressgateway-6b7c9d-x2k4p',
  namespace: 'istio-system',
  nodeName: 'node-1',
  podIp: '127.114.0.10',
  serviceAccount: 'istio-ingressgateway',
  labels: { app: 'istio-ingressgateway' },
  isMeshed: false,
  isReady: true,
  isDeleting: false,
  isTerminal: false,
};

const source: ClusterSource = {
  pods: () => [GATEWAY],
  services: () => [],
  onChange: () => () => undefined,
};

interface Attempt {
  /** The identity the client certificate carries. */
  cert: { namespace: string; serviceAccount: string };
  /** The node the proxy says it is, and its SERVICE_ACCOUNT metadata. */
  node: { podName: string; ip: string; serviceAccount: string };
  /** A node id that is not Istio's form, sent instead of the node's. */
  rawNodeId?: string;
  /** The refusal reason the control plane must log and send; undefined: configuration is served. */
  refused?: string;
}

const nodeIdOf = (a: Attempt): string =>
  a.rawNodeId ?? proxyNodeId({ type: 'router', namespace: 'istio-system', ...a.node });

const asGateway = { namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' };
const gatewayNode = { podName: GATEWAY.name, ip: GATEWAY.podIp, serviceAccount: 'istio-ingressgateway' };

const ATTEMPTS: [string, Attempt][] = [
  ['its own identity, its own live pod: served', { cert: asGateway, node: gatewayNode }],
  [
    "another workload's certificate claiming the gateway's node",
    {
      cert: { namespace: 'default', serviceAccount: 'httpbin' },
      node: gatewayNode,
      refused:
        'no identity in the certificate (URI:spiffe://cluster.local/ns/default/sa/httpbin) matches istio-system/istio-ingressgateway',
    },
  ],
  [
    "a certificate of another service account of the namespace, whose node names the gateway's pod",
    {
      cert: { namespace: 'istio-system', serviceAccount: 'intruder' },
      node: { ...gatewayNode, serviceAccount: 'intruder' },
      refused: `pod istio-system/${GATEWAY.name} runs as istio-ingressgateway, the certificate is intruder`,
    },
  ],
  [
    'a node that names no live pod',
    {
      cert: asGateway,
      node: { ...gatewayNode, podName: 'istio-ingressgateway-6b7c9d-gone1' },
      refused: 'no pod istio-system/istio-ingressgateway-6b7c9d-gone1 at 127.114.0.10',
    },
  ],
  [
    "the gateway's pod name at another address",
    {
      cert: asGateway,
      node: { ...gatewayNode, ip: '127.114.0.11' },
      refused: `no pod istio-system/${GATEWAY.name} at 127.114.0.11`,
    },
  ],
  [
    'a node id not of the form type~ip~pod.namespace~domain (INVALID_ARGUMENT)',
    {
      cert: asGateway,
      node: gatewayNode,
      rawNodeId: 'garbage',
      refused: 'node id "garbage" is not <type>~<ip>~<pod>.<ns>~<domain>',
    },
  ],
];

const ISTIOD_NAME = ISTIOD_HOSTNAMES[0] ?? 'istiod.istio-system.svc';
const AdsClient = makeGenericClientConstructor(adsService(), 'AggregatedDiscoveryService');

/** Opens an ADS stream as `attempt`'s proxy, asks for clusters; the first response or the stream's error. */
async function subscribe(
  address: string,
  rootPem: string,
  cert: { certPem: string; keyPem: string },
  attempt: Attempt,
) {
  const client = new AdsClient(
    address,
    credentials.createSsl(Buffer.from(rootPem), Buffer.from(cert.keyPem), Buffer.from(cert.certPem)),
    // As pilot-agent's bootstrap dials it: SNI and the name checked are istiod's Service name.
    { 'grpc.ssl_target_name_override': ISTIOD_NAME, 'grpc.default_authority': ISTIOD_NAME },
  );
  try {
    const call = (
      client as unknown as { StreamAggregatedResources(): ClientDuplexStream<unknown, unknown> }
    ).StreamAggregatedResources();
    const answer = new Promise<{ response?: unknown; error?: ServiceError }>((resolve) => {
      call.once('data', (response: unknown) => {
        resolve({ response });
      });
      call.once('error', (error: ServiceError) => {
        resolve({ error });
      });
    });
    call.write({
      node: {
        id: nodeIdOf(attempt),
        metadata: struct({ NAMESPACE: 'istio-system', SERVICE_ACCOUNT: attempt.node.serviceAccount }),
      },
      type_url: TYPE_URL.cluster,
    });
    const result = await answer;
    call.cancel();
    return result;
  } finally {
    client.close();
  }
}

describe("the control plane's mTLS xDS port for Envoy", () => {
  it(
    'serves a proxy its own pod and identity only; refuses the rest with the reason, logged',
    { timeout: 20_000 },
    async (t) => {
      const log: Record<string, unknown>[] = [];
      const cp = await startControlPlane({
        source,
        authenticate: () => Promise.resolve('no CA callers in this test'),
        clock: createSystemClock(),
        log: createLogger({
          component: 'control-plane',
          level: 'warn',
          format: 'json',
          write: (l) => log.push(JSON.parse(l) as Record<string, unknown>),
        }),
        host: '127.114.0.200',
        debounceQuietMs: 10,
        debounceMaxMs: 100,
        pushLatencyMs: 0,
        ports: { xds: 0, ca: 0, envoyXds: 0 },
      });
      t.after(() => cp.close());
      for (const [name, attempt] of ATTEMPTS) {
        const cert = await cp.ca.issue(attempt.cert);
        const logged = log.length;
        const { response, error } = await subscribe(cp.envoyXdsAddress, cp.ca.rootPem, cert, attempt);
        const refusals = log.slice(logged).filter((l) => l['msg'] === 'xDS connection refused');
        if (attempt.refused === undefined) {
          assert.equal(error, undefined, `${name}: ${String(error?.details)}`);
          assert.equal((response as { type_url?: string }).type_url, TYPE_URL.cluster, name);
          assert.deepEqual(refusals, [], name);
          continue;
        }
        assert.equal(response, undefined, `${name}: served`);
        const code = attempt.rawNodeId ? status.INVALID_ARGUMENT : status.PERMISSION_DENIED;
        assert.deepEqual([error?.code, error?.details], [code, attempt.refused], name);
        assert.deepEqual(
          refusals.map((l) => [l['node'], l['reason']]),
          [[nodeIdOf(attempt), attempt.refused]],
          name,
        );
      }
      assert.deepEqual(cp.nacks(), []);
    },
  );
});
