// End to end on real processes: 2 nodes, control plane, ztunnel DaemonSet, 3 meshed httpbin pods.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connectDiscovery, serviceKey } from '../../mesh/discovery/index.ts';
import { formatSpiffeId } from '../../mesh/pki/index.ts';
import { certificateAs } from './certificate-as.ts';
import type { LifecycleEvent } from '../events.ts';
import { createLocalBackend } from '../local/index.ts';
import { buildMeshManifests, HTTPBIN_PORT } from '../manifests/index.ts';
import { isAlive } from '../../lib/test/processes.ts';
import { hboneGet } from './hbone-get.ts';

const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;
const ZTUNNEL = { kind: 'DaemonSet', namespace: 'istio-system', name: 'ztunnel' } as const;

function firstAt(events: readonly LifecycleEvent[], kind: LifecycleEvent['kind'], object: string): number {
  const e = events.find((x) => x.kind === kind && x.object === object);
  assert.ok(e, `no ${kind} for ${object}`);
  return e.atMs;
}

describe('local cluster, end to end', () => {
  it('serves each pod over HBONE, rolls httpbin and ztunnel with the Kubernetes lifecycle, leaves no process', async (t) => {
    const logDir = await mkdtemp(join(tmpdir(), 'local-cluster-logs-'));
    t.after(() => rm(logDir, { recursive: true, force: true }));
    const backend = createLocalBackend({ addressBlock: 221, logDir });
    t.after(() => backend.close());
    const failures: string[] = [];
    backend.onFailure((err) => failures.push(err.message));
    await backend.up();
    await backend.apply(
      buildMeshManifests({ ztunnel: { graceS: 2 }, httpbin: { replicas: 3, mesh: 'ambient' } }),
    );
    await backend.waitForReady({ timeoutMs: 15_000 });
    const { controlPlane, pods: initial } = backend.addresses();
    const cert = await certificateAs(backend, 'istio-system', 'gateway');
    const httpbinId = formatSpiffeId({
      trustDomain: 'cluster.local',
      namespace: 'default',
      serviceAccount: 'httpbin',
    });

    // Each pod answers through its node's ztunnel with its own identity, and its own go-httpbin logs
    // the request (go-httpbin's /hostname names no pod unless it runs with the pod's hostname).
    const oldPods = initial.filter((p) => p.owner === 'deployment/httpbin');
    assert.equal(oldPods.length, 3);
    assert.deepEqual(new Set(oldPods.map((p) => p.node)), new Set(['node-1', 'node-2']));
    for (const pod of oldPods) {
      assert.notEqual(pod.appIp, pod.podIp);
      const reply = await hboneGet({
        podIp: pod.podIp,
        port: HTTPBIN_PORT,
        path: `/hostname?pod=${pod.name}`,
        cert,
        expectedIdentity: httpbinId,
      });
      assert.equal(reply.connectStatus, 200);
      assert.equal(reply.httpStatus, 200);
      const podLog = await readFile(join(logDir, `default_${pod.name}_httpbin.log`), 'utf8');
      assert.match(podLog, new RegExp(`uri="/hostname\\?pod=${pod.name}"`));
    }

    // Light load like a gateway: endpoints from the control plane, HEALTHY only, one request each 25 ms.
    const [host = '', port = ''] = controlPlane.xds.split(':');
    const discovery = await connectDiscovery({
      host,
      port: Number(port),
      node: 'test',
      instance: 'test-gateway',
    });
    t.after(() => {
      discovery.close();
    });
    await discovery.synced;
    const outcomes = new Map<string, number>();
    const control = { loading: true };
    const load = (async () => {
      for (let i = 0; control.loading && i < 2000; i++) {
        const service = discovery.state.serviceByVip(backend.addresses().services[0]?.vip ?? '');
        const healthy = service
          ? discovery.state.endpointsOf(service).filter((w) => w.status === 'HEALTHY')
          : [];
        const target = healthy[i % Math.max(1, healthy.length)];
        if (target) {
          const reply = await hboneGet({
            podIp: target.podIp,
            port: HTTPBIN_PORT,
            path: '/status/418',
            cert,
          }).catch(() => ({ connectStatus: -1 }));
          const key = String(
            'httpStatus' in reply ? reply.httpStatus : `connect ${String(reply.connectStatus)}`,
          );
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    })();

    await backend.rolloutRestart(HTTPBIN);
    const rollout = await backend.waitForRollout(HTTPBIN, { timeoutMs: 20_000, untilOldPodsGone: true });
    control.loading = false;
    await load;
    // The last removal reaches the control plane after the last pod is gone: wait for its push.
    const lastOld = oldPods.map((p) => `${p.namespace}/${p.name}`);
    await new Promise<void>((resolve) => {
      const check = (): void => {
        const pushed = backend
          .events()
          .filter((e) => e.kind === 'workload-removed-pushed')
          .map((e) => e.object);
        if (lastOld.every((k) => pushed.includes(k))) resolve();
      };
      backend.onEvent(check);
      check();
    });
    assert.ok(rollout.statusCompleteAtMs <= (rollout.oldPodsGoneAtMs ?? Infinity));
    assert.ok((outcomes.get('418') ?? 0) > 20, `load ran: ${JSON.stringify([...outcomes])}`);

    const events = backend.events();
    for (const pod of oldPods) {
      const key = `${pod.namespace}/${pod.name}`;
      const deleting = firstAt(events, 'pod-deleting', key);
      const unhealthy = firstAt(events, 'workload-unhealthy-pushed', key);
      const sigterm = firstAt(events, 'sigterm', key);
      const exited = firstAt(events, 'container-exited', key);
      const del = firstAt(events, 'del-workload', key);
      const removedPush = firstAt(events, 'workload-removed-pushed', key);
      const removed = firstAt(events, 'pod-removed', key);
      // Branches run in parallel from the deletion (docs/architecture.md, Pod termination); within each, order holds.
      assert.ok(
        deleting < sigterm && sigterm < exited && exited <= del && del <= removed,
        `kubelet branch of ${key}`,
      );
      assert.ok(
        deleting < unhealthy && unhealthy < removedPush && exited < removedPush,
        `control-plane branch of ${key}`,
      );
      // At most a push already under way (250 ms latency) plus debounce (100 ms) and the next push.
      assert.ok(
        unhealthy - deleting < 1000,
        `UNHEALTHY pushed ${String(unhealthy - deleting)} ms after deletion`,
      );
      t.diagnostic(
        `${key}: SIGTERM +${(sigterm - deleting).toFixed(0)} ms, UNHEALTHY pushed +${(unhealthy - deleting).toFixed(0)} ms, exit +${(exited - deleting).toFixed(0)} ms, removal pushed +${(removedPush - deleting).toFixed(0)} ms`,
      );
    }
    // The discovery client saw the final state: three new HEALTHY pods, none of the old.
    const svc = discovery.state.serviceByVip(backend.addresses().services[0]?.vip ?? '');
    assert.ok(svc && serviceKey(svc) === 'default/httpbin');
    const endpoints = discovery.state.endpointsOf(svc);
    assert.equal(endpoints.filter((w) => w.status === 'HEALTHY').length, 3);
    assert.ok(endpoints.every((w) => !oldPods.some((p) => p.name === w.name)));

    // ztunnel: on each node the surge instance is Ready before the old one gets SIGTERM.
    const oldZtunnels = initial.filter((p) => p.owner === 'daemonset/ztunnel');
    await backend.rolloutRestart(ZTUNNEL);
    await backend.waitForRollout(ZTUNNEL, { timeoutMs: 20_000, untilOldPodsGone: true });
    const after = backend.events();
    for (const old of oldZtunnels) {
      const sigterm = firstAt(after, 'sigterm', `${old.namespace}/${old.name}`);
      const surge = after.find(
        (e) =>
          e.kind === 'pod-ready' &&
          e.node === old.node &&
          e.object.startsWith('istio-system/ztunnel-') &&
          e.object !== `${old.namespace}/${old.name}` &&
          e.atMs > firstAt(after, 'rollout-started', 'daemonset/istio-system/ztunnel'),
      );
      assert.ok(surge, `a new ztunnel became Ready on ${old.node}`);
      assert.ok(
        surge.atMs < sigterm,
        `surge Ready at ${String(surge.atMs)} before old SIGTERM at ${String(sigterm)}`,
      );
    }
    assert.deepEqual(failures, []);

    const pids = after
      .filter((e) => e.kind === 'container-started')
      .map((e) => Number(/pid (\d+)/.exec(e.detail ?? '')?.[1]));
    assert.ok(pids.length >= 10);
    await backend.close();
    assert.deepEqual(pids.filter(isAlive), [], 'every container process is gone after close');
  });
});
