// `npm run bench`: figures, never a gate (wall time on a shared 2-core machine varies).
//  1. The load generator (fortio, or the user's k6) -> a local HTTP target through the harness's
//     load path (per-request records, reconciliation): requests/s, latency, and what the record collection costs.
//  2. One HBONE hop (client -> ztunnel process -> echo app) next to the same load sent directly.
//  3. The generator through the gateway on the experiment's own path (runClusterExperiment, restart none):
//     gateway -> HBONE -> ztunnel -> httpbin next to gateway -> httpbin, with every component's CPU.
//  4. Local cluster bring-up: up() to every pod Ready (budget < 3 s, docs/architecture.md, Budgets).
import { availableParallelism } from 'node:os';
import { createSystemClock } from '../../lib/index.ts';
import { benchClusterUp } from '../campaigns/bench/cluster-up.ts';
import { benchGatewayPaths } from '../campaigns/bench/gateway-paths.ts';
import type { EchoLoadResult } from '../campaigns/bench/echo-load.ts';
import { benchHboneHop } from '../campaigns/bench/hbone-hop.ts';
import { benchIstioHop } from '../campaigns/bench/istio-hop.ts';
import { realZtunnelHere } from '../campaigns/conformance/real-target.ts';
import { benchGeneratorLocal } from '../campaigns/bench/generator-local.ts';
import { runMain } from '../cli/run-main.ts';
import { parseBareCommand } from '../cli/version.ts';
import { chooseGenerator } from '../provision/index.ts';

const cell = (v: number, digits = 0, width = 9): string =>
  (Number.isNaN(v) ? '-' : v.toFixed(digits)).padStart(width);

runMain(async (signal) => {
  parseBareCommand(
    'bench',
    'Figures, never a gate: the load generator against a local target, one HBONE hop, the experiment path through the gateway, local cluster bring-up (several minutes; takes no options)',
    process.argv.slice(2),
  );
  const generator = await chooseGenerator('auto', { signal });
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  out(`machine: ${String(availableParallelism())} cores, Node ${process.versions.node}`);

  out(`\n1. ${generator.kind} v${generator.version} -> Node http target, qps 0, 5 s (${generator.why})`);
  out('   connections  requests    req/s   p50 ms   p99 ms  dropped  record B/req');
  for (const r of await benchGeneratorLocal({ generator, connections: [100, 1000], durationS: 5, signal })) {
    out(
      `   ${cell(r.connections, 0, 11)} ${cell(r.requests)} ${cell(r.perSecond, 0, 8)} ${cell(r.p50Ms, 2, 8)} ` +
        `${cell(r.p99Ms, 2, 8)} ${cell(r.dropped, 0, 8)} ${cell(r.recordBytesPerRequest, 1, 13)}`,
    );
  }

  out('\n2. 64-byte echo round trips, 100 concurrent connections, 5 s each');
  const { direct, hbone } = await benchHboneHop({ connections: 100, durationMs: 5000 });
  const real = await realZtunnelHere(process.env);
  const upstream =
    typeof real === 'string' ? undefined : await benchIstioHop({ real, connections: 100, durationMs: 5000 });
  out(
    '   path                                                 round trips   per s   p50 ms   p99 ms  errors  ztunnel CPU us/round trip',
  );
  type Row = [string, EchoLoadResult & { cpuUsPerRoundTrip?: number }];
  const rows: Row[] = [
    ['direct (client -> app)', direct],
    ['one HBONE hop, our ztunnel (client -> ztunnel -> app)', hbone],
    ...(upstream
      ? [
          ['direct into the pod namespace (host -> veth -> app)', upstream.direct] as Row,
          ['one HBONE hop, istio/ztunnel (dedicated, netns)', upstream.hbone] as Row,
        ]
      : []),
  ];
  for (const [name, r] of rows) {
    const cpu = r.cpuUsPerRoundTrip === undefined ? '-' : r.cpuUsPerRoundTrip.toFixed(1);
    out(
      `   ${name.padEnd(53)}${cell(r.roundTrips, 0, 10)} ${cell(r.perSecond, 0, 7)} ${cell(r.p50Ms, 2, 8)} ${cell(r.p99Ms, 2, 8)} ${cell(r.errors, 0, 7)}  ${cpu.padStart(10)}`,
    );
  }
  if (typeof real === 'string') out(`   istio/ztunnel's hop not measured: ${real}`);

  const durationS = 20;
  out(
    `\n3. npm run experiment -- --scenario workload-rollout --qps 0 -c N --restart-at none --duration ${String(durationS)} (the experiment's own path; budget: >= 4,950 req/s at c=100, >= 4,700 at c=1000)`,
  );
  out(
    '   path                                     connections    req/s   p50 ms   p99 ms  failed  dropped  gateway CPU us/req   CPU % of one core, mean/max: harness  generator  gateway  ztunnel  httpbin',
  );
  const clock = createSystemClock();
  for (const r of await benchGatewayPaths({ connections: [100, 1000], durationS, clock, signal })) {
    const c = (x: { avg: number; max: number }): string =>
      Number.isNaN(x.avg) ? '-' : `${x.avg.toFixed(0)}/${x.max.toFixed(0)}`;
    out(
      `   ${r.path.padEnd(40)} ${cell(r.connections, 0, 11)} ${cell(r.perSecond, 0, 8)} ${cell(r.p50Ms, 2, 8)} ${cell(r.p99Ms, 2, 8)} ${cell(r.failed, 0, 7)} ${cell(r.dropped, 0, 8)} ${cell(r.gatewayCpuUsPerRequest, 0, 19)}   ${[c(r.cpu.harness), c(r.cpu.generator), c(r.cpu.gateway), c(r.cpu.ztunnel), c(r.cpu.httpbin)].join('  ')}`,
    );
  }

  out('\n4. local cluster up (2 nodes, control plane, 2 ztunnels, gateway, 3 httpbin pods), 5 runs');
  out('   run  control plane + nodes ms  all pods Ready ms  pods');
  const ups = await benchClusterUp({ repeats: 5, addressBlock: 180 });
  ups.forEach((r, i) => {
    out(`   ${cell(i + 1, 0, 3)} ${cell(r.upMs, 0, 25)} ${cell(r.readyMs, 0, 18)} ${cell(r.pods, 0, 5)}`);
  });
  const sorted = ups.map((r) => r.readyMs).sort((a, b) => a - b);
  out(`   median ${(sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(0)} ms (budget 3000 ms)`);
  return 0;
});
