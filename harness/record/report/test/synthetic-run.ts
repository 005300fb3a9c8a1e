// A run folder's rows as the experiment writes them (record/run-row.ts, run-tables.ts), made up: 10 s at 2,000 RPS in
// 100 ms buckets, a rollout restart of httpbin at 3.8 s, and two bursts - 15 x 503 UF while the old
// pod drains (4.0-4.3 s) and 3 x 503 UC from the keep-alive race at 7.0 s. Counts are chosen so
// tests can check them: 20,000 OK, 18 failed.

type Row = Record<string, string | number>;

export const POD = 'default/httpbin-5d8f7c9b4-x7k2p';
export const FAILED_UF = 15;
export const FAILED_UC = 3;

function timelineRows(): Row[] {
  return Array.from({ length: 100 }, (_, i) => {
    const t = i / 10;
    return {
      t_s: t.toFixed(3),
      ok: 200,
      http_503_uf: t >= 4 && t < 4.25 ? 5 : 0,
      http_503_uc: i === 70 ? FAILED_UC : 0,
      reset: 0,
    };
  });
}

const event = (t_s: string, kind: string, object: string, source: string, detail = ''): Row => ({
  t_s,
  wall: `2026-11-21T00:00:0${t_s.slice(0, 1)}.${t_s.slice(2)}Z`,
  kind,
  source,
  object,
  node: object.startsWith('deployment/') ? '' : 'kind-worker',
  detail,
});

function eventRows(): Row[] {
  return [
    event('3.800', 'rollout-started', 'deployment/default/httpbin', 'harness', 'rollout restart'),
    event('3.820', 'pod-created', 'default/httpbin-5d8f7c9b4-q9w8e', 'api-server'),
    event('3.900', 'pod-deleting', POD, 'api-server'),
    event('3.950', 'sigterm', POD, 'kubelet'),
    event('4.350', 'workload-unhealthy-pushed', POD, 'control-plane'),
    event('4.360', 'del-workload', POD, 'node-agent'),
    event(
      '4.370',
      'drain-deadline',
      'istio-system/ztunnel-abcde',
      'container-log',
      '2026-11-21T00:00:04.370Z info drain deadline reached, closing connections=72 in_flight=3 component=inbound workload=default/httpbin-5d8f7c9b4-x7k2p src.addr=10.244.1.17:43512 dst.addr=10.244.1.23:8080',
    ),
    event('6.500', 'container-exited', POD, 'kubelet', 'exit code 0'),
    event('6.600', 'pod-removed', POD, 'api-server'),
  ];
}

function burstRows(): Row[] {
  return [
    {
      start_s: '4.000',
      duration_ms: 300,
      failures: FAILED_UF,
      cause_kind: 'pod-deleting',
      cause_object: POD,
      cause_t_s: '3.900',
      mechanism: 'pod-termination',
      gateway_failures: FAILED_UF,
      dropped_connections: '',
      dropped_in_flight: '',
      failed_before_drop: '',
      failed_after_drop: '',
      gateway_reaction_ms: '',
      cause_timeline:
        'pod-deleting +0.000 s, sigterm +0.050 s, del-workload +0.460 s, container-exited +2.600 s',
      explanation: `${POD} was terminating (pod-deleting); the gateway failed 15 sent to it between +0.100 and +0.349 s from its pod-deleting`,
    },
    {
      start_s: '7.000',
      duration_ms: 40,
      failures: FAILED_UC,
      cause_kind: '',
      cause_object: '',
      cause_t_s: '',
      mechanism: 'keep-alive-race',
      gateway_failures: FAILED_UC,
      dropped_connections: '',
      dropped_in_flight: '',
      failed_before_drop: '',
      failed_after_drop: '',
      gateway_reaction_ms: '',
      cause_timeline: '',
      explanation:
        'the keep-alive race: the gateway failed 3 503 UC put on upstream connections idle 4.998-5.001 s, as httpbin closed them',
    },
  ];
}

/** zoom.csv: 10 ms buckets a second either side of each burst, 20 requests each. */
function zoomRows(): Row[] {
  const burst1 = Array.from({ length: 231 }, (_, i) => {
    const t = 3 + i / 100;
    const uf = t >= 4 && t < 4.3 ? (i % 2 === 0 ? 1 : 0) : 0;
    return { burst: 1, t_s: t.toFixed(3), ok: 20 - uf, http_503_uf: uf, http_503_uc: 0 };
  });
  const burst2 = Array.from({ length: 205 }, (_, i) => {
    const t = 6 + i / 100;
    const uc = i === 100 || i === 101 || i === 104 ? 1 : 0;
    return { burst: 2, t_s: t.toFixed(3), ok: 20 - uc, http_503_uf: 0, http_503_uc: uc };
  });
  return [...burst1, ...burst2];
}

function cpuRows(): Row[] {
  return Array.from({ length: 10 }, (_, s) => [
    { t_s: `${String(s)}.000`, component: 'fortio', group: 'generator', cpu_pct: 40 },
    { t_s: `${String(s)}.000`, component: 'istio-system/ztunnel-abcde', group: 'ztunnel', cpu_pct: 12 },
    { t_s: `${String(s)}.000`, component: 'istio-system/gateway-1', group: 'gateway', cpu_pct: 20 + s },
  ]).flat();
}

function summaryRow(): Row {
  return {
    schema_version: 6,
    run_id: '2026-11-21T00-00-00-workload-rollout-local',
    scenario: 'workload-rollout',
    backend: 'local',
    mesh: 'ambient',
    grace_s: 30,
    qps: 2000,
    connections: 32,
    duration_s: 10,
    requests: 20_000 + FAILED_UF + FAILED_UC,
    ok: 20_000,
    http_503: FAILED_UF + FAILED_UC,
    other_5xx: 0,
    refused: 0,
    reset: 0,
    eof: 0,
    timeout: 0,
    other: 0,
    p50_ms: '2.00',
    p99_ms: '9.00',
    bursts: 2,
    max_burst_ms: 300,
    verdict: 'fail',
    reason: `${String(FAILED_UF + FAILED_UC)} failed > 0 (--max-failed)`,
    http_503_uf: FAILED_UF,
    http_503_uc: FAILED_UC,
    restart_at_s: 3.8,
    rollout_started_s: '3.800',
    drain_deadlines_s: '4.370',
    started_at: '2026-11-21T00:00:00.000Z',
    git_sha: 'e22c86b5f3a1d0c9b8a7e6f5d4c3b2a1f0e9d8c7',
    generator_version:
      'fortio 1.66.0 h1:9F/200qIu136z847bxs/NeAoYdJaQlVofYlppi3qwcw= go1.26.8 amd64 linux, a long version string to wrap',
    // One long value with no space in it: the parameters table must wrap it, not widen the page.
    backend_details:
      'node=kind-worker,kernel=6.8.0-48-generic,cni=istio-cni,ztunnel=localhost/ztunnel@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,istiod=docker.io/istio/pilot:1.29.0-distroless',
  };
}

/** Everything writeRunReport takes, but the folder and the bucket width. */
export function syntheticRun() {
  const timeline = timelineRows();
  return {
    row: summaryRow(),
    timeline,
    events: eventRows(),
    bursts: burstRows(),
    zoom: zoomRows(),
    cpu: cpuRows(),
    latency: timeline.map((r) => ({ t_s: r['t_s'] ?? '', requests: 200, p50_ms: 2, p99_ms: 9 })),
    byEnd: timeline,
  };
}
