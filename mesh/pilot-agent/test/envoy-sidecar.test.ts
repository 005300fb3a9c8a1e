// pilot-agent `proxy sidecar` in an httpbin pod, through the same fixture: its own identity from the
// CA, its configuration over the control plane's mTLS ADS (the pod's node, the pod's certificate),
// and Envoy's INBOUND listener on <pod>:8080 serving the app at its private address.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { get, podOf } from './gateway-scene.ts';
import { startHeldApps } from './held-apps.ts';
import { envoyMissing, startTestMesh } from './proxy-fixture.ts';

it(
  "a sidecar serves its pod's app on <pod>:8080 and logs it",
  { skip: envoyMissing, timeout: 30_000 },
  async (t) => {
    const mesh = await startTestMesh(t, '127.113.5');
    const [pod] = mesh.httpbin;
    assert.ok(pod);
    const appAddress = '127.113.5.130'; // the pod's "localhost" on the local backend
    const apps = await startHeldApps([appAddress]);
    t.after(() => apps.close());
    const proxy = await mesh.startProxy({ type: 'sidecar', pod, localBindAddress: appAddress });
    assert.equal(proxy.ingress, `${pod.podIp}:8080`);
    const reply = await get(proxy.ingress, '/through-sidecar');
    assert.deepEqual([reply.status, podOf(reply)], [200, appAddress]);
    const e = await proxy.logFor('/through-sidecar');
    assert.deepEqual([e.status, e.flags, e.attempts, e.upstream], [200, [], 1, `${appAddress}:8080`]);
    assert.deepEqual(mesh.log, [], 'the control plane refused nothing');
  },
);
