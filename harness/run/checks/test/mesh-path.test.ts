// kind-smoke's mesh check against the real components' logs: the local backend runs the same Envoy
// gateway (pilot-agent + Envoy 1.40), our ztunnel and go-httpbin that the kind images run, so the
// log lines the check reads on kind are the ones read here.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLocalBackend } from '../../../../clusters/local/index.ts';
import { buildMeshManifests } from '../../../../clusters/manifests/index.ts';
import { HTTPBIN_DEPLOYMENT } from '../../scenario-manifests.ts';
import { meshPathEvidence, meshPathProblems, sendMarked } from '../mesh-path.ts';

const SENT = 12;

for (const mesh of ['ambient', 'off'] as const)
  test(`the smoke's mesh check on real components, httpbin mesh ${mesh}: ${mesh === 'ambient' ? 'shown' : 'refused'}`, async (t) => {
    const logDir = await mkdtemp(join(tmpdir(), 'mesh-path-'));
    t.after(() => rm(logDir, { recursive: true, force: true }));
    const backend = createLocalBackend({ addressBlock: mesh === 'ambient' ? 231 : 232, logDir });
    t.after(() => backend.close());
    await backend.up();
    await backend.apply(
      buildMeshManifests({
        ztunnel: { graceS: 2 },
        httpbin: { replicas: 2, mesh },
        gateway: { mode: 'hbone' },
      }),
    );
    await backend.waitForReady({ timeoutMs: 30_000 });
    const { ingress, pods } = backend.addresses();
    assert.ok(ingress);
    assert.deepEqual(await sendMarked(ingress, SENT), Array<number>(SENT).fill(200));
    // The old pods' ending closes ztunnel's inbound connections: their `connection complete` lines.
    await backend.rolloutRestart(HTTPBIN_DEPLOYMENT);
    await backend.waitForRollout(HTTPBIN_DEPLOYMENT, { timeoutMs: 30_000, untilOldPodsGone: true });
    // Envoy flushes its access log every second (pilot-agent's --file-flush-interval-msec 1000).
    const logsOf = (owner: string): string[] =>
      pods.filter((p) => p.owner === owner).flatMap((p) => backend.logs(`${p.namespace}/${p.name}`));
    let evidence = meshPathEvidence({ gateway: [], ztunnels: [] });
    for (let waited = 0; waited < 5000 && evidence.gatewayRequests < SENT; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      evidence = meshPathEvidence({
        gateway: logsOf('deployment/istio-ingressgateway'),
        ztunnels: logsOf('daemonset/ztunnel'),
      });
    }
    assert.equal(evidence.gatewayRequests, SENT, 'every marked request is in the gateway access log');
    if (mesh === 'ambient') {
      assert.deepEqual(meshPathProblems(evidence, SENT), []);
      assert.ok(evidence.ztunnelInbound >= 1);
    } else {
      // Outside the mesh the gateway sends plaintext straight to the pods: the check must say so.
      assert.equal(evidence.gatewayOkViaHbone, 0);
      assert.equal(evidence.ztunnelInbound, 0);
      assert.equal(meshPathProblems(evidence, SENT).length, 2);
    }
  });
