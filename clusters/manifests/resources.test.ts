// What every container of the manifests asks the scheduler for (issue 33, prediction 3): a container
// that sets a CPU limit and no request gets a request equal to the limit (core v1 defaults), and a
// gateway asking for 2 CPUs stays Pending on a 2-vCPU kind node, where kindnet already asks for 100m.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { buildKindControlPlane } from '../kind/kind-manifests.ts';
import {
  buildGateway,
  buildMeshManifests,
  GATEWAY_NODE_PORT,
  isDaemonSet,
  isDeployment,
  ISTIO_PROXY_REQUESTS,
} from './index.ts';
import type { ClusterObject } from './index.ts';

/** kind's CNI DaemonSet on every node asks for this (kind pkg/build/nodeimage/const_cni.go). */
const KINDNET_CPU_REQUEST_MILLI = 100;

/** A CPU quantity in millicores ("100m", "2", "1.5"). */
function milli(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

/** The request the API server stores: the one given, else the limit (core v1 SetDefaults_Pod), else 0. */
function effectiveCpuRequestMilli(container: V1Container): number {
  const cpu = container.resources?.requests?.['cpu'] ?? container.resources?.limits?.['cpu'];
  return cpu === undefined ? 0 : milli(cpu);
}

function podSpecs(objects: readonly ClusterObject[]): [string, V1PodSpec][] {
  return objects.flatMap((o) =>
    (isDeployment(o) || isDaemonSet(o)) && o.spec?.template.spec
      ? [[`${o.kind ?? ''}/${o.metadata?.name ?? ''}`, o.spec.template.spec] as [string, V1PodSpec]]
      : [],
  );
}

/** Everything that goes onto kind, with the most the CLI allows of what costs CPU. */
const KIND_OBJECTS = [
  ...(buildKindControlPlane() as ClusterObject[]),
  ...buildMeshManifests({
    ztunnel: { graceS: 30, inPod: false },
    httpbin: { replicas: 3, mesh: 'ambient', sidecar: { exitOnZeroActiveConnections: false } },
    gateway: { mode: 'hbone', nodePort: GATEWAY_NODE_PORT, concurrency: 16 },
    client: { rps: 10 },
  }),
];

describe('container resources', () => {
  it("the gateway's istio-proxy asks for Istio's 100m CPU and 128Mi, and keeps its CPU limit for Envoy's workers", () => {
    const [deployment] = buildGateway({ mode: 'hbone', nodePort: GATEWAY_NODE_PORT });
    const proxy = deployment.spec?.template.spec?.containers.find((c) => c.name === 'istio-proxy');
    assert.deepEqual(proxy?.resources, {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '2000m' },
    });
    assert.deepEqual(ISTIO_PROXY_REQUESTS, { cpu: '100m', memory: '128Mi' });
    assert.deepEqual(proxy.env?.find((e) => e.name === 'ISTIO_CPU_LIMIT')?.valueFrom, {
      resourceFieldRef: { resource: 'limits.cpu' },
    });
  });

  it('no container sets a CPU or memory limit without a request', () => {
    for (const [owner, spec] of podSpecs(KIND_OBJECTS))
      for (const c of spec.containers)
        for (const resource of ['cpu', 'memory'])
          if (c.resources?.limits?.[resource] !== undefined)
            assert.ok(c.resources.requests?.[resource] !== undefined, `${owner} ${c.name} ${resource}`);
  });

  it('every pod fits on a 2-vCPU kind node beside kindnet, at the largest --gateway-concurrency (16)', () => {
    for (const [owner, spec] of podSpecs(KIND_OBJECTS)) {
      const requested = spec.containers.reduce((sum, c) => sum + effectiveCpuRequestMilli(c), 0);
      assert.ok(requested + KINDNET_CPU_REQUEST_MILLI <= 2000, `${owner} asks for ${String(requested)}m`);
    }
  });
});
