// The gateway's connection-pool arms reach Envoy's cluster as a DestinationRule would set them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { httpProtocolOptions } from '../../mesh/xds/istio-clusters.ts';
import { ROUTE_POLICY_METADATA, routePolicyOf } from '../../mesh/xds/route-policy.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import { defaultParams } from '../options/params.ts';
import { scenarioManifests } from './scenario-manifests.ts';
import { CLUSTER_SCENARIOS } from './scenarios/index.ts';

/** The gateway's route policy, as its pilot-agent hands it to the control plane in its metadata. */
function gatewayPolicy(upstreamIdleTimeoutS: number) {
  const scenario = CLUSTER_SCENARIOS['workload-rollout'];
  assert.ok(scenario);
  const params = defaultParams(experimentOptions(), scenario);
  params.arms = { ...params.arms, upstreamIdleTimeoutS };
  const gateway = scenarioManifests(params).find(
    (o): o is V1Deployment => o.kind === 'Deployment' && o.metadata?.name === 'istio-ingressgateway',
  );
  const env = gateway?.spec?.template.spec?.containers[0]?.env ?? [];
  const metadata = Object.fromEntries(
    env.flatMap((e) => (e.name.startsWith('ISTIO_META_') ? [[e.name.slice(11), e.value ?? '']] : [])),
  );
  return { policy: routePolicyOf(metadata), raw: metadata[ROUTE_POLICY_METADATA] };
}

test("--upstream-idle-timeout is the gateway cluster's idle_timeout; 0 leaves Istio's default", () => {
  const { policy } = gatewayPolicy(4);
  assert.equal(policy.connectionPool.idleTimeoutMs, 4000);
  const options = JSON.stringify(httpProtocolOptions(policy.connectionPool));
  assert.match(options, /"idle_timeout":\{"seconds":"4","nanos":0\}/);
  // The default sets no policy at all (istiod's own cluster: a 1 h idle timeout).
  assert.equal(gatewayPolicy(0).raw, undefined);
});
