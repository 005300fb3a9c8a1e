import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAllYaml } from '@kubernetes/client-node';
import type { V1ClusterRole, V1ClusterRoleBinding } from '@kubernetes/client-node';
import { DEFAULT_CNI_MANIFEST, nodeCniScript } from './node-cni.ts';

// Found on the first real run: the Node authorizer lets a node read only its own Node, so the node
// service saw no other node's podCIDR, wrote no CNI config, and no node became Ready.
test("the node image's default CNI manifest lets every node (group system:nodes) list nodes", () => {
  const objects = loadAllYaml(DEFAULT_CNI_MANIFEST) as (V1ClusterRole | V1ClusterRoleBinding)[];
  const role = objects.find((o): o is V1ClusterRole => o.kind === 'ClusterRole');
  const binding = objects.find((o): o is V1ClusterRoleBinding => o.kind === 'ClusterRoleBinding');
  assert.ok(role && binding);
  assert.ok(role.rules?.some((r) => r.resources?.includes('nodes') && r.verbs.includes('list')));
  assert.equal(binding.roleRef.name, role.metadata?.name);
  assert.deepEqual(
    binding.subjects?.map((s) => `${s.kind}/${s.name}`),
    ['Group/system:nodes'],
  );
});

test("the node service reads nodes with the kubelet's credentials and writes kindnetd's ptp config", () => {
  const script = nodeCniScript();
  assert.match(script, /kubectl --kubeconfig "\$kubeconfig" get nodes/);
  assert.match(script, /kubeconfig=\/etc\/kubernetes\/kubelet\.conf/);
  assert.match(script, /"type": "ptp"/);
  assert.match(script, /ip route replace "\$cidr" via "\$ip"/);
});
