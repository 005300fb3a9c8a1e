// istiod's view of a pod on kind: which pods it sends as HBONE.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { podViewOf } from './kube-source.ts';

const pod = (annotations?: Record<string, string>): V1Pod => ({
  metadata: {
    name: 'httpbin-1',
    namespace: 'default',
    uid: 'u1',
    labels: { app: 'httpbin', 'istio.io/dataplane-mode': 'ambient' },
    ...(annotations ? { annotations } : {}),
  },
  spec: { nodeName: 'w1', containers: [] },
  status: { podIP: '10.244.1.7', hostIP: '172.18.0.3', phase: 'Running' },
});

test("in-pod mode: an ambient pod is meshed (HBONE) only once istio-cni has annotated it captured, as istiod's setTunnelProtocol reads it", () => {
  assert.equal(podViewOf(pod(), { tunnel: 'pod' }).isMeshed, false);
  assert.equal(
    podViewOf(pod({ 'ambient.istio.io/redirection': 'enabled' }), { tunnel: 'pod' }).isMeshed,
    true,
  );
  assert.equal(
    podViewOf(pod({ 'ambient.istio.io/redirection': 'disabled' }), { tunnel: 'pod' }).isMeshed,
    false,
  );
  // Node-address mode has no node agent to say so: the label alone, as before.
  assert.equal(podViewOf(pod(), { tunnel: 'node' }).isMeshed, true);
});
