// Seed 004 on real processes: a request in flight through the gateway to a sidecar pod when the
// Deployment is scaled to zero. pilot-agent's default drain exits after terminationDrainDuration and
// resets the request; EXIT_ON_ZERO_ACTIVE_CONNECTIONS waits for it. Durations are shortened (drain
// 1 s, request 3 s): the same semantics as 5 s / 10 s, in less test time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalBackend } from '../local/index.ts';
import { buildGateway, buildHttpbin } from '../manifests/index.ts';
import { parseAccessLogLine } from '../../mesh/xds/access-log.ts';

const HTTPBIN = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;

async function inFlightDuringScaleToZero(
  t: { after: (fn: () => Promise<void>) => void },
  exitOnZero: boolean,
  block: number,
) {
  const backend = createLocalBackend({ nodeCount: 1, addressBlock: block });
  t.after(() => backend.close());
  await backend.up();
  const sidecar = {
    exitOnZeroActiveConnections: exitOnZero,
    terminationDrainDurationS: 1,
    minimumDrainDurationS: 1,
  };
  await backend.apply([
    ...buildHttpbin({ replicas: 1, mesh: 'off', sidecar }),
    ...buildGateway({ mode: 'plain' }),
  ]);
  await backend.waitForReady({ timeoutMs: 15_000 });
  const ingress = backend.addresses().ingress;
  assert.ok(ingress);
  // Ready pods are not yet the gateway's endpoints: that takes the control plane's debounced push.
  for (let i = 0; ; i++) {
    const status = await fetch(`http://${ingress}/status/200`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    assert.ok(i < 100, `the gateway never reached httpbin (last status ${String(status)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const sentAt = performance.now();
  const reply = fetch(`http://${ingress}/delay/3`).then(async (r) => ({
    status: r.status,
    atMs: performance.now() - sentAt,
    body: await r.text(),
  }));
  await new Promise((r) => setTimeout(r, 300));
  const deletedAt = performance.now() - sentAt;
  await backend.scale(HTTPBIN, 0);
  const result = await reply;
  const gateway =
    backend
      .events()
      .find((e) => e.kind === 'pod-created' && e.object.startsWith('istio-system/istio-ingressgateway'))
      ?.object ?? '';
  // The gateway's own account of the request: Envoy's access-log line for /delay/3, once Envoy has
  // flushed it (--file-flush-interval-msec 1000, as pilot-agent sets it).
  let logged: ReturnType<typeof parseAccessLogLine>;
  for (let i = 0; i < 60 && !logged; i++) {
    logged = backend
      .logs(gateway)
      .map((line) => (line.includes('"/delay/3"') ? parseAccessLogLine(line) : undefined))
      .find((e) => e !== undefined);
    if (!logged) await new Promise((r) => setTimeout(r, 50));
  }
  return { ...result, deletedAt, flags: logged?.flags.join(',') ?? '', details: logged?.details ?? '' };
}

describe('sidecar drain (pilot-agent)', () => {
  it('default drain: the in-flight request is reset when the proxy exits after the drain duration -> 503 UC', async (t) => {
    const r = await inFlightDuringScaleToZero(t, false, 214);
    assert.equal(r.status, 503, r.body);
    assert.match(r.body, /reset reason: connection termination/);
    assert.equal(r.flags, 'UC');
    assert.equal(r.details, 'upstream_reset_before_response_started{connection_termination}');
    // Deleted at ~0.3 s; drain 1 s after SIGTERM; well before the app's 3 s answer.
    assert.ok(r.atMs > r.deletedAt + 900 && r.atMs < 2900, `answered at ${String(Math.round(r.atMs))} ms`);
  });

  it('EXIT_ON_ZERO_ACTIVE_CONNECTIONS: the proxy waits for the request, which completes with 200', async (t) => {
    const r = await inFlightDuringScaleToZero(t, true, 215);
    assert.equal(r.status, 200, r.body);
    assert.ok(r.atMs >= 3000, `answered at ${String(Math.round(r.atMs))} ms`);
  });
});
