// What a run keeps of a user's cluster's logs: its own pods whole, Istio's pods' lines that concern
// it or no one, nothing of another tenant's (lines in the formats ztunnel, istiod and Envoy write).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { createLogScope } from './log-scope.ts';

const RUN = 'ztunnel-harness-20261129-110000-abcd';
const HOST = 'httpbin-0123456789abcdef0123456789abcdef.ztunnel-harness.test';

const pod = (namespace: string, name: string, labels: Record<string, string>, podIP: string): V1Pod => ({
  metadata: { namespace, name, labels },
  status: { podIP },
});

const PODS = [
  pod(RUN, 'httpbin-a', { app: 'httpbin' }, '10.244.2.5'),
  pod(RUN, 'fortio-run', {}, '10.244.1.7'),
  pod('istio-system', 'ztunnel-x', { app: 'ztunnel' }, '10.244.1.2'),
  pod('istio-system', 'istiod-y', { app: 'istiod' }, '10.244.0.9'),
  pod(
    'istio-system',
    'istio-ingressgateway-z',
    { app: 'istio-ingressgateway', istio: 'ingressgateway' },
    '10.244.1.3',
  ),
  pod('istio-system', 'kiali-k', { app: 'kiali' }, '10.244.0.11'),
  pod('team-a', 'web-1', { app: 'web' }, '10.244.2.40'),
];

const scope = (allIstioLogs = false) =>
  createLogScope({
    runNamespace: RUN,
    istioNamespace: 'istio-system',
    gatewayNamespace: 'istio-system',
    gatewaySelector: () => ({ app: 'istio-ingressgateway', istio: 'ingressgateway' }),
    host: HOST,
    addresses: () => ({ pods: PODS, nodeIps: ['172.18.0.2'], serviceIps: ['10.96.7.7'] }),
    watchVersion: () => 0,
    allIstioLogs,
  });

test("whose logs: the run's pods whole, ztunnel's/istiod's/the gateway's by line, no one else's", () => {
  const s = scope();
  assert.deepEqual(
    PODS.map((p) => `${p.metadata?.name ?? ''}:${s.of(p)}`),
    [
      'httpbin-a:whole',
      'fortio-run:whole',
      'ztunnel-x:lines',
      'istiod-y:lines',
      'istio-ingressgateway-z:lines',
      'kiali-k:none',
      'web-1:none',
    ],
  );
  const all = scope(true);
  assert.deepEqual(
    PODS.map((p) => all.of(p)),
    ['whole', 'whole', 'whole', 'whole', 'whole', 'whole', 'none'],
  );
});

test("which lines: the run's and no one's kept; another tenant's dropped", () => {
  const s = scope();
  const kept = [
    // ztunnel: the run's connection, its own drain
    `2026-11-29T11:00:01.123Z\tinfo\taccess\tconnection complete\tsrc.addr=10.244.1.7:43210 src.workload="fortio-run" src.namespace="${RUN}" dst.addr=10.244.2.5:15008 dst.workload="httpbin-a" dst.namespace="${RUN}" direction="inbound"`,
    '2026-11-29T11:00:02.000Z\tinfo\tztunnel::signal\treceived signal, starting shutdown\tsignal=SIGTERM',
    '2026-11-29T11:00:02.001Z\tinfo\tdrain\tdraining inbound connections for 10.244.1.2:15008',
    // istiod: a push about no one, its own config
    '2026-11-29T11:00:03.000Z\tinfo\tads\tPush debounce stable[42] 1 for config Deployment/istio-system/istiod: 100.2ms since last change',
    '2026-11-29T11:00:03.100Z\tinfo\tads\tXDS: Pushing Services:12 ConnectedEndpoints:3 Version:2026-11-29T11:00:03Z/42',
    // the gateway: the run's request (its Host) and Envoy's own line
    `[2026-11-29T11:00:04.000Z] "GET /get HTTP/1.1" 200 - via_upstream - "-" 0 312 3 2 "10.244.1.7" "fortio.org/fortio-1.66.0" "id" "${HOST}" "10.244.2.5:8080" outbound|8000||httpbin.${RUN}.svc.cluster.local`,
    '[2026-11-29 11:00:05.000][14][info][upstream] cds: added/updated 1 cluster(s), skipped 57 unmodified cluster(s)',
  ];
  const dropped = [
    '2026-11-29T11:00:01.500Z\tinfo\taccess\tconnection complete\tsrc.addr=10.244.2.41:5555 src.workload="web-2" src.namespace="team-a" dst.addr=10.244.2.40:15008 dst.workload="web-1" dst.namespace="team-a"',
    '2026-11-29T11:00:03.200Z\tinfo\tads\tPush debounce stable[43] 1 for config ServiceEntry/team-a/payments: 100.1ms since last change',
    '2026-11-29T11:00:03.300Z\tinfo\tads\tCDS: PUSH request for node:web-1.team-a resources:57 size:40.1kB',
    '[2026-11-29T11:00:04.500Z] "POST /pay HTTP/1.1" 200 - via_upstream - "-" 12 40 3 2 "203.0.113.9" "curl/8" "id" "shop.example.com" "10.244.2.40:8080" outbound|80||web.team-a.svc.cluster.local',
    '2026-11-29T11:00:06.000Z\twarn\tspiffe://cluster.local/ns/team-b/sa/default: certificate rotated',
  ];
  for (const line of kept) assert.ok(s.keeps(line), `kept: ${line}`);
  for (const line of dropped) assert.ok(!s.keeps(line), `dropped: ${line}`);
});

test("the addresses are read once per watch update, not once per log line (the follow's hot path)", () => {
  let reads = 0;
  let version = 0;
  const s = createLogScope({
    runNamespace: RUN,
    istioNamespace: 'istio-system',
    gatewayNamespace: 'istio-system',
    gatewaySelector: () => undefined,
    host: HOST,
    addresses: () => {
      reads += 1;
      return { pods: PODS, nodeIps: [], serviceIps: [] };
    },
    watchVersion: () => version,
    allIstioLogs: false,
  });
  for (let i = 0; i < 100; i++) s.keeps(`info\taccess\tsrc.addr=10.244.2.41:${String(i)}`);
  assert.equal(reads, 1);
  version += 1;
  assert.ok(!s.keeps('info\taccess\tsrc.addr=10.244.2.41:1'));
  assert.equal(reads, 2);
});
