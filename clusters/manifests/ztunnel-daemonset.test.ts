// The ztunnel DaemonSet as the API server stores its pods (issue 33, prediction 8): on a hostNetwork
// pod every declared container port becomes a host port (kubernetes pkg/apis/core/v1 defaults.go,
// defaultHostNetworkPorts), and a node runs one pod per host port, so the surge pod of a maxSurge 1 /
// maxUnavailable 0 rollout could never be placed beside the old one (KEP-1591).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1PodSpec } from '@kubernetes/client-node';
import { buildZtunnelDaemonSet } from './index.ts';

/** The host ports a pod made from `spec` holds, after the API server's defaulting. */
function hostPortsOf(spec: V1PodSpec): number[] {
  return spec.containers.flatMap((c) =>
    (c.ports ?? []).flatMap((p) => {
      const host = p.hostPort ?? (spec.hostNetwork ? p.containerPort : undefined);
      return host === undefined ? [] : [host];
    }),
  );
}

describe('ztunnel DaemonSet', () => {
  it("node-address mode (kind): hostNetwork, no host port held, so the chart's surge rollout can place the new pod", () => {
    const ds = buildZtunnelDaemonSet({ graceS: 30, inPod: false });
    const spec = ds.spec?.template.spec;
    assert.ok(spec);
    assert.equal(spec.hostNetwork, true);
    assert.deepEqual(hostPortsOf(spec), []);
    assert.deepEqual(ds.spec?.updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
  });

  it('in-pod mode (upstream, local backend): its own network, the stats port declared as the chart does', () => {
    const spec = buildZtunnelDaemonSet({ graceS: 30 }).spec?.template.spec;
    assert.ok(spec);
    assert.equal(spec.hostNetwork, undefined);
    assert.deepEqual(spec.containers[0]?.ports, [
      { containerPort: 15020, name: 'ztunnel-stats', protocol: 'TCP' },
    ]);
    assert.deepEqual(hostPortsOf(spec), []);
  });
});
