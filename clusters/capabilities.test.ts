import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ErrorCode, isHarnessError } from '../lib/index.ts';
import { CAPABILITIES, refusal } from './capabilities.ts';
import { providerOf } from './registry.ts';

it("the local backend has every capability but a load pod in the cluster, node-address ztunnel and the gateway's rollout; a requirement kind lacks is refused in one message shape", () => {
  assert.deepEqual(
    [...providerOf('local').capabilities].sort(),
    Object.keys(CAPABILITIES)
      .filter(
        (c) =>
          c !== 'loadInCluster' &&
          c !== 'nodeAddressZtunnel' &&
          c !== 'gatewayRollout' &&
          c !== 'cniDaemonSet' &&
          c !== 'nodeDrain',
      )
      .sort(),
  );
  assert.deepEqual(
    [...providerOf('kind').capabilities],
    [
      'inPodZtunnel',
      'nodeAddressZtunnel',
      'upstreamZtunnelDaemonSet',
      'controlPlaneDebounce',
      'loadInCluster',
      'hostIngress',
      'componentLogs',
      'gatewayAccessLog',
      'faultServerWorkload',
      'gatewayRollout',
      'ztunnelUpdateStrategies',
      'cniDaemonSet',
      'nodeDrain',
    ],
  );
  // An existing cluster: Istio's ambient as it runs there, reached only from inside it; its gateway
  // logs only where its mesh config says.
  assert.deepEqual(
    [...providerOf('cluster').capabilities],
    ['inPodZtunnel', 'loadInCluster', 'componentLogs'],
  );
  const needs = [{ capability: 'timingModel' as const, flag: '--timing', value: 'pushLatencyMs' }];
  assert.equal(refusal('local', needs), undefined);
  const refused = refusal('kind', needs);
  assert.ok(isHarnessError(refused, ErrorCode.BadInput));
  assert.equal(
    refused.message,
    `Expected --timing to be something --backend kind can run, got "pushLatencyMs"; it needs ${CAPABILITIES.timingModel}; run it with --backend local`,
  );
  assert.equal(refusal('kind', []), undefined);
  // The debounce alone is istiod's PILOT_DEBOUNCE_AFTER on kind; an existing cluster's is its own.
  const debounce = [
    { capability: 'controlPlaneDebounce' as const, flag: '--timing', value: 'debounceQuietMs' },
  ];
  assert.equal(refusal('kind', debounce), undefined);
  assert.match(refusal('cluster', debounce)?.message ?? '', /istiod's push debounce set by the harness/);
});
