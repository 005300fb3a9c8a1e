import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRAIN_DEADLINE_REACHED } from '../../ztunnel/telemetry/log-messages.ts';
import { IMAGES, ISTIO_ZTUNNEL_IMAGE_REPOSITORY } from '../manifests/index.ts';
import { createLogEventMatcher } from './log-events.ts';

const ztunnel = (pod: string) => ({
  log: { namespace: 'istio-system', pod, container: 'istio-proxy' },
  image: IMAGES.ztunnel,
  node: 'ztunnel-harness-worker',
});

test("ztunnel's drain deadline line is its container's drain-deadline event, at the line's own time, once", () => {
  const eventOf = createLogEventMatcher();
  const line = `2026-11-27T04:53:27.783000Z\tinfo\tztunnel\t${DRAIN_DEADLINE_REACHED}\tinstance="ztunnel-w8vnk" connections=42 in_flight=24`;
  assert.deepEqual(eventOf(ztunnel('ztunnel-w8vnk'), line), {
    kind: 'drain-deadline',
    source: 'container-log',
    object: 'istio-system/ztunnel-w8vnk',
    node: 'ztunnel-harness-worker',
    wallMs: Date.parse('2026-11-27T04:53:27.783Z'),
    detail: line.slice(0, 200),
  });
  assert.equal(eventOf(ztunnel('ztunnel-w8vnk'), line), undefined, 'once per container');
  assert.equal(eventOf(ztunnel('ztunnel-other'), line)?.object, 'istio-system/ztunnel-other');
  // Another image's line, or another line of ztunnel's, is no event.
  assert.equal(eventOf({ ...ztunnel('gw'), image: IMAGES.proxy }, line), undefined);
  assert.equal(
    eventOf(ztunnel('ztunnel-x'), '2026-11-27T04:53:27.783000Z\tinfo\tztunnel\tdrain started'),
    undefined,
  );
});

test("istio-cni's enrolment of a pod is the node agent's add of it: the pod, its IP, the agent's node", () => {
  const eventOf = createLogEventMatcher();
  const agent = {
    log: { namespace: 'istio-system', pod: 'istio-cni-node-bfbrt', container: 'install-cni' },
    image: IMAGES.cni,
    node: 'ztunnel-harness-worker2',
  };
  const line =
    '2026-11-27T04:33:21.920Z info  istio-cni pod enrolled uid=6e62 namespace=default name=httpbin-7f8476f877-nr2m4 pod_ip=10.244.1.6 netns=/var/run/netns/cni-12ff via=cni after_pod_start_ms=920';
  assert.deepEqual(eventOf(agent, line), {
    kind: 'add-workload',
    source: 'node-agent',
    object: 'default/httpbin-7f8476f877-nr2m4',
    detail: '10.244.1.6 enrolled (cni)',
    node: 'ztunnel-harness-worker2',
    wallMs: Date.parse('2026-11-27T04:33:21.920Z'),
  });
  assert.equal(eventOf(agent, line.replace('nr2m4', 'other'))?.object, 'default/httpbin-7f8476f877-other');
  assert.equal(eventOf(agent, line), undefined, 'once per pod');
});

test("istio/ztunnel's binary's drain deadline (its own line, from src/drain.rs) is its container's drain-deadline event, whatever the image's tag", () => {
  const eventOf = createLogEventMatcher();
  const binary = (pod: string, image = `${ISTIO_ZTUNNEL_IMAGE_REPOSITORY}:0123456789abcdef`) => ({
    log: { namespace: 'istio-system', pod, container: 'istio-proxy' },
    image,
    node: 'ztunnel-harness-worker',
  });
  const line =
    '2026-11-27T14:41:03.512345Z\twarn\tdrain\tdrain duration expired with pending connections, forcefully shutting down\tcomponent="inbound"';
  assert.deepEqual(eventOf(binary('ztunnel-abcde'), line), {
    kind: 'drain-deadline',
    source: 'container-log',
    object: 'istio-system/ztunnel-abcde',
    node: 'ztunnel-harness-worker',
    wallMs: Date.parse('2026-11-27T14:41:03.512Z'),
    detail: line.slice(0, 200),
  });
  // One per instance: shared mode logs it once per workload proxy, all at the one deadline.
  assert.equal(eventOf(binary('ztunnel-abcde'), line.replace('inbound', 'outbound')), undefined);
  // Our ztunnel's image does not say upstream's line, and another repository is not the binary's.
  assert.equal(eventOf(binary('ztunnel-ours', IMAGES.ztunnel), line), undefined);
  assert.equal(eventOf(binary('ztunnel-x', `${ISTIO_ZTUNNEL_IMAGE_REPOSITORY}-other:1`), line), undefined);
});

test("ztunnel's xDS removal lines (istio/ztunnel's, and ours written the same way) are each an event; updates are none", () => {
  const eventOf = createLogEventMatcher();
  const binary = {
    log: { namespace: 'istio-system', pod: 'ztunnel-f9d26', container: 'istio-proxy' },
    image: `${ISTIO_ZTUNNEL_IMAGE_REPOSITORY}:0123456789abcdef`,
    node: 'ztunnel-harness-worker',
  };
  // The binary's own lines (src/xds/client.rs), from a kind run's ztunnel log.
  const removal =
    '2026-11-27T13:50:14.460123Z\tinfo\txds::client:xds{id=1}\treceived response\ttype_url="type.googleapis.com/istio.workload.Address" size=0 removes=1';
  const update = removal.replace('size=0 removes=1', 'size=2 removes=0');
  assert.equal(eventOf(binary, update), undefined);
  assert.deepEqual(eventOf(binary, removal), {
    kind: 'address-removal-received',
    source: 'container-log',
    object: 'istio-system/ztunnel-f9d26',
    node: 'ztunnel-harness-worker',
    wallMs: Date.parse('2026-11-27T13:50:14.460Z'),
    detail: removal.slice(0, 200),
  });
  // Every line: each removal is its own.
  assert.equal(eventOf(binary, removal.replace('14.460123', '16.011000'))?.kind, 'address-removal-received');
  const authorization = removal.replace('istio.workload.Address', 'istio.security.Authorization');
  assert.equal(eventOf(binary, authorization), undefined);
  const ours =
    '2026-11-27T13:50:14.470000Z\tinfo\txds::client\treceived response\tinstance="n/1" type_url="type.googleapis.com/istio.workload.Address" removes=2 workloads="default/a,default/b"';
  assert.equal(eventOf(ztunnel('ztunnel-w8vnk'), ours)?.kind, 'address-removal-received');
});

test("go-httpbin's own line at SIGTERM is its pod's sigterm, at slog's time=, mirrored images included", () => {
  const eventOf = createLogEventMatcher();
  const httpbin = (image: string) => ({
    log: { namespace: 'default', pod: 'httpbin-56476cd466-xdqhl', container: 'httpbin' },
    image,
    node: 'ztunnel-harness-worker2',
  });
  const line = 'time=2026-11-29T11:05:58.296Z level=INFO msg="shutting down ..."';
  assert.deepEqual(eventOf(httpbin(IMAGES.httpbin), line), {
    kind: 'sigterm',
    source: 'container-log',
    object: 'default/httpbin-56476cd466-xdqhl',
    node: 'ztunnel-harness-worker2',
    wallMs: Date.parse('2026-11-29T11:05:58.296Z'),
    detail: line,
  });
  assert.equal(eventOf(httpbin(IMAGES.httpbin), line), undefined, 'once per container');
  assert.equal(
    createLogEventMatcher()(httpbin(`registry.example:5000/${IMAGES.httpbin}`), line)?.kind,
    'sigterm',
  );
  assert.equal(createLogEventMatcher()(httpbin('example/other-httpbin:v2.26.0'), line), undefined);
  assert.equal(
    eventOf(
      httpbin(IMAGES.httpbin),
      'time=2026-11-29T11:05:33.001Z level=INFO msg="go-httpbin listening on http://0.0.0.0:8080"',
    ),
    undefined,
  );
});

test("the fault server's SIGTERM line (in httpbin's place with --app-shutdown echo) is its pod's sigterm", () => {
  const line =
    "2026-11-29T17:56:17.250Z info  fault-server received SIGTERM, draining as Istio's echo does (until 1 s without a request, at most 10 s)";
  const e = createLogEventMatcher()(
    {
      log: { namespace: 'default', pod: 'httpbin-786797f7fb-7pk5p', container: 'httpbin' },
      image: IMAGES.faultServer,
      node: 'ztunnel-harness-worker',
    },
    line,
  );
  assert.deepEqual(
    [e?.kind, e?.object, e?.wallMs],
    ['sigterm', 'default/httpbin-786797f7fb-7pk5p', Date.parse('2026-11-29T17:56:17.250Z')],
  );
});
