// A rollout of the node-address ztunnel DaemonSet on kind (issue 33, prediction 8), with the controller
// double placing pods as the scheduler does: a hostNetwork pod's declared ports are host ports, so a
// surge pod beside the old one cannot be placed while the old one holds them. The manifest declares
// none in node mode; the same DaemonSet with its old port declaration shows the deadlock it avoids.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { buildZtunnelDaemonSet } from '../../manifests/index.ts';
import { startKindFixture } from './kind-fixtures.ts';

const ZTUNNEL = { kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' } as const;

async function restartZtunnel(
  t: Parameters<typeof startKindFixture>[0],
  daemonSet: ReturnType<typeof buildZtunnelDaemonSet>,
  timeoutMs: number,
) {
  const { backend } = await startKindFixture(t, { api: {}, controllers: true });
  await backend.up();
  await backend.apply([daemonSet]);
  await backend.waitForReady({ timeoutMs: 10_000 });
  await backend.rolloutRestart(ZTUNNEL);
  return backend.waitForRollout(ZTUNNEL, { timeoutMs, untilOldPodsGone: true });
}

describe('ztunnel DaemonSet rollout on kind (node-address mode)', () => {
  it('surges a new pod beside the old one on each node and completes', async (t) => {
    const daemonSet = buildZtunnelDaemonSet({ graceS: 1, inPod: false });
    assert.deepEqual(daemonSet.spec?.updateStrategy?.rollingUpdate, { maxSurge: 1, maxUnavailable: 0 });
    const result = await restartZtunnel(t, daemonSet, 10_000);
    assert.ok(result.statusCompleteAtMs <= (result.oldPodsGoneAtMs ?? -1));
  });

  it('with a declared container port (before the fix) the surge pod is never placed and the rollout times out', async (t) => {
    const declared = buildZtunnelDaemonSet({ graceS: 1, inPod: false });
    const container = declared.spec?.template.spec?.containers[0];
    assert.ok(container);
    container.ports = [{ containerPort: 15020, name: 'ztunnel-stats', protocol: 'TCP' }];
    await assert.rejects(
      restartZtunnel(t, declared, 1500),
      (err: unknown) => isHarnessError(err, ErrorCode.ComponentFailed) && /timed out/.test(err.message),
    );
  });
});
