import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { createTokenIssuer, ISTIO_CA_AUDIENCE } from '../../mesh/pki/index.ts';
import { buildMeshManifests } from '../manifests/index.ts';
import type { PodRecord } from './cluster-state.ts';
import { buildContainerEnv } from './container-env.ts';
import { mountPodVolumes, unsupportedVolume } from './pod-volumes.ts';

it('refuses volumes the local kubelet cannot mount, naming why', () => {
  assert.match(String(unsupportedVolume({ name: 'h', hostPath: { path: '/etc' } })), /only the hostPath/);
  assert.match(
    String(unsupportedVolume({ name: 'c', configMap: { name: 'kube-root-ca.crt' } })),
    /istio-ca-root-cert/,
  );
  assert.match(String(unsupportedVolume({ name: 's', secret: { secretName: 'x' } })), /only hostPath/);
  assert.match(
    String(
      unsupportedVolume({
        name: 't',
        projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 60 } }] },
      }),
    ),
    /at least 600/,
  );
  assert.equal(unsupportedVolume({ name: 'e', emptyDir: {} }), undefined);
});

it("mounts ztunnel's token (bound to its pod, audience istio-ca) and root where its env points", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pod-volumes-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const daemonSet = buildMeshManifests({
    ztunnel: { graceS: 30 },
    httpbin: { replicas: 1, mesh: 'ambient' },
  }).find((o) => o.kind === 'DaemonSet') as { spec: { template: { spec: PodRecord['spec'] } } };
  const spec = daemonSet.spec.template.spec;
  const pod = {
    uid: 'u-1',
    name: 'ztunnel-abc',
    namespace: 'istio-system',
    nodeName: 'node-1',
    serviceAccount: 'ztunnel',
    podIp: '127.1.0.9',
    hostIp: '127.1.0.1',
    appIp: '127.1.0.9',
    spec,
  } as PodRecord;
  const tokens = await createTokenIssuer();
  const volumeDirs = await mountPodVolumes(pod, { nodeRunDir: dir, rootCertPem: 'ROOT\n', tokens });
  const container = spec.containers[0];
  assert.ok(container);
  const env = buildContainerEnv(pod, container, { volumeDirs, resolveService: () => '127.1.0.200' });
  assert.equal(env['CA_ADDRESS'], 'https://127.1.0.200:15012');
  assert.equal(env['ZDS_ADDRESS'], join(dir, 'ztunnel.sock'));
  assert.equal(await readFile(env['CA_ROOT_CA'] ?? '', 'utf8'), 'ROOT\n');
  const caller = await tokens.review(
    await readFile(env['AUTH_TOKEN'] ?? '', 'utf8'),
    ISTIO_CA_AUDIENCE,
    (ns, name) => (ns === 'istio-system' && name === 'ztunnel-abc' ? 'u-1' : undefined),
  );
  assert.deepEqual(caller, {
    namespace: 'istio-system',
    serviceAccount: 'ztunnel',
    podName: 'ztunnel-abc',
    podUid: 'u-1',
    nodeName: 'node-1',
  });
  const recreated = await tokens.review(
    await readFile(env['AUTH_TOKEN'] ?? '', 'utf8'),
    ISTIO_CA_AUDIENCE,
    () => 'u-2',
  );
  assert.equal(recreated, "pod istio-system/ztunnel-abc uid does not match the token's");
});
