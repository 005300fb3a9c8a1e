import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../lib/index.ts';
import type { LocalWorkload } from '../workload.ts';
import { createPodEnroller, workloadOf } from './kube-node-agent.ts';
import type { AgentPod } from './kube-node-agent.ts';

function pod(
  name: string,
  over: { node?: string; ip?: string; ambient?: boolean; phase?: string; hostNetwork?: boolean } = {},
): AgentPod {
  return {
    metadata: {
      uid: `uid-${name}`,
      name,
      namespace: 'default',
      labels: over.ambient === false ? {} : { 'istio.io/dataplane-mode': 'ambient' },
    },
    spec: {
      nodeName: over.node ?? 'node-2',
      serviceAccountName: 'httpbin',
      ...(over.hostNetwork ? { hostNetwork: true } : {}),
      containers: [{ ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: 'UDP' }] }],
    },
    status: { phase: over.phase ?? 'Running', ...(over.ip === '' ? {} : { podIP: over.ip ?? '10.244.1.7' }) },
  };
}

function setUp() {
  const calls: string[] = [];
  const added: LocalWorkload[] = [];
  const annotated: string[] = [];
  const enroller = createPodEnroller({
    nodeName: 'node-2',
    log: createLogger({ component: 'test', write: () => undefined }),
    now: () => 0,
    server: {
      addWorkload: (w) => {
        added.push(w);
        calls.push(`add ${w.name}`);
        return Promise.resolve();
      },
      delWorkload: (uid, o) => {
        calls.push(`del ${uid} networkGone=${String(o?.networkGone)}`);
        return Promise.resolve();
      },
    },
    findNetns: (uid) => Promise.resolve(uid === 'uid-ghost' ? undefined : `/proc/1/ns/net#${uid}`),
    capture: (netns, ip) => {
      calls.push(`capture ${netns} ${ip}`);
      return Promise.resolve();
    },
    release: (ip) => {
      calls.push(`release ${ip}`);
      return Promise.resolve();
    },
    annotate: (p, enabled) => {
      annotated.push(`${p.metadata?.name ?? ''}=${String(enabled)}`);
      return Promise.resolve();
    },
  });
  return { calls, added, annotated, enroller };
}

test('an ambient pod of this node with an IP is captured, then handed over; once, however many updates come', async () => {
  const { calls, added, enroller } = setUp();
  await enroller.onPod(pod('a', { ip: '' }));
  await enroller.onPod(pod('a'));
  await enroller.onPod(pod('a'));
  assert.deepEqual(calls, ['capture /proc/1/ns/net#uid-a 10.244.1.7', 'add a']);
  assert.deepEqual(added[0], {
    uid: 'uid-a',
    name: 'a',
    namespace: 'default',
    serviceAccount: 'httpbin',
    podIp: '10.244.1.7',
    appIp: '10.244.1.7',
    ports: [8080],
    netns: '/proc/1/ns/net#uid-a',
    inpodCapture: true,
  });
});

test('pods of other nodes, outside the mesh, on the host network or not found yet are left alone', async () => {
  const { calls, enroller } = setUp();
  await enroller.onPod(pod('elsewhere', { node: 'node-1' }));
  await enroller.onPod(pod('plain', { ambient: false }));
  await enroller.onPod(pod('host', { hostNetwork: true }));
  await enroller.onPod(pod('ghost'));
  assert.deepEqual(calls, []);
  assert.deepEqual(enroller.enrolled(), []);
});

test('a pod leaves the mesh at a terminal phase or at its deletion, to every ztunnel, its probe rule removed', async () => {
  const { calls, enroller } = setUp();
  await enroller.onPod(pod('a'));
  await enroller.onPod(pod('b', { ip: '10.244.1.8' }));
  calls.length = 0;
  await enroller.onPod(pod('a', { phase: 'Succeeded' }));
  await enroller.onPodGone(pod('a'));
  await enroller.onPodGone(pod('b', { ip: '10.244.1.8' }));
  assert.deepEqual(calls, [
    'del uid-a networkGone=true',
    'release 10.244.1.7',
    'del uid-b networkGone=true',
    'release 10.244.1.8',
  ]);
  assert.deepEqual(enroller.enrolled(), []);
});

test('events are applied in arrival order: a deletion right after an add waits for the enrolment to end', async () => {
  const { calls, enroller } = setUp();
  const both = [enroller.onPod(pod('a')), enroller.onPodGone(pod('a'))];
  await Promise.all(both);
  assert.deepEqual(calls, [
    'capture /proc/1/ns/net#uid-a 10.244.1.7',
    'add a',
    'del uid-a networkGone=true',
    'release 10.244.1.7',
  ]);
});

test("the workload's ports are the TCP container ports of every container", () => {
  const p = pod('a');
  p.spec?.containers.push({ ports: [{ containerPort: 9090, protocol: 'TCP' }] });
  assert.deepEqual(workloadOf(p, '/n').ports, [8080, 9090]);
});

test('a captured pod is annotated ambient.istio.io/redirection=enabled once it is handed over; the annotation goes when it leaves the mesh still running, not when it is deleted or done', async () => {
  const { calls, annotated, enroller } = setUp();
  await enroller.onPod(pod('a'));
  assert.deepEqual(annotated, ['a=true']);
  assert.deepEqual(calls, ['capture /proc/1/ns/net#uid-a 10.244.1.7', 'add a']);
  // Enrolled again by a restarted agent: the annotation is there already, nothing written.
  const restarted = setUp();
  const marked = pod('b');
  marked.metadata = { ...marked.metadata, annotations: { 'ambient.istio.io/redirection': 'enabled' } };
  await restarted.enroller.onPod(marked);
  assert.deepEqual(restarted.annotated, []);
  // Its label taken off while it runs: out of the mesh, the annotation removed.
  await enroller.onPod(pod('a', { ambient: false }));
  assert.deepEqual(annotated, ['a=true', 'a=false']);
  // Done, or deleted: nothing to annotate.
  await enroller.onPod(pod('c'));
  await enroller.onPod(pod('c', { phase: 'Succeeded' }));
  await enroller.onPod(pod('d'));
  await enroller.onPodGone(pod('d'));
  assert.deepEqual(annotated, ['a=true', 'a=false', 'c=true', 'd=true']);
});
