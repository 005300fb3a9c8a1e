// The peers suite (suites/peers.yaml): each row runs an upstream test's traffic and judges it by that
// test's own criterion, so a run that loses one call of Istio's 100 % fails its row and one inside
// TestZtunnelRestart's 90 % passes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { backendRefusal } from './entry-availability.ts';
import { entryArgs } from './run-suite.ts';
import { judgeShape } from './shape-rule.ts';
import { loadSuite } from './suite-file.ts';

const suite = await loadSuite('peers');
const entry = (configuration: string, experiment: string) => {
  const found = suite.entries.find((e) => e.configuration === configuration && e.experiment === experiment);
  assert.ok(found, `${experiment}: ${configuration}`);
  return found;
};

test("suites/peers.yaml: Istio's two restart tests with each caller and shutdown, its CNI test, and Cilium's against E3", async () => {
  const ran = await Promise.all(
    suite.entries.map(async (e) => {
      // The gateway's rollout and istio-cni's deletion run on kind.
      const kind = e.flags.scenario === 'gateway-rollout' || e.flags.scenario === 'cni-missing';
      const p = await resolve(entryArgs(e, 1, kind ? 'kind' : undefined));
      const idle = p.arms.upstreamIdleTimeoutS ? ` idle ${String(p.arms.upstreamIdleTimeoutS)} s` : '';
      return `${p.scenario} ${p.appShutdown} ${p.gatewayMode} ${p.ztunnelImpl} ${p.ztunnelUpdate}${idle}`;
    }),
  );
  assert.deepEqual(ran, [
    'istio-service-restart echo hbone ours surge',
    'istio-service-restart echo plain ours surge',
    'istio-service-restart immediate hbone ours surge',
    'istio-service-restart echo hbone istio-shared surge',
    'istio-ztunnel-restart immediate hbone ours surge',
    'istio-ztunnel-restart immediate plain ours surge',
    'istio-ztunnel-restart immediate hbone istio-shared surge',
    'gateway-rollout immediate hbone ours surge',
    'gateway-rollout immediate hbone ours surge idle 4 s',
    'long-lived immediate plain ours surge',
    'cni-missing immediate hbone ours surge',
  ]);
});

test('the gateway rollout row says, on the local backend, why it does not run there', () => {
  const gateway = entry(
    "the ingress gateway's rollout, 5000 QPS over 50 connections",
    'Envoy Gateway EnvoyShutdown',
  );
  assert.match(backendRefusal(gateway, 'local'), /not available on local: .*gateway.*--backend kind/);
  assert.equal(backendRefusal(gateway, 'kind'), '');
});

test("each row's criterion is its upstream test's: 100 %, 90 %, no connection interrupted", () => {
  const run = (ok: number, requests = 1000) => ({ requests: String(requests), ok: String(ok) });
  const service = entry("echo's shutdown, mesh caller (gateway over HBONE)", 'Istio TestServiceRestart');
  const ztunnel = entry('mesh caller (gateway over HBONE)', 'Istio TestZtunnelRestart');
  const none = new Map();
  assert.ok(service.shape && ztunnel.shape);
  assert.equal(judgeShape(service.shape, [run(1000)], none), true);
  assert.equal(judgeShape(service.shape, [run(999)], none), false, 'one call lost fails 1.0');
  assert.equal(judgeShape(ztunnel.shape, [run(900)], none), true);
  assert.equal(judgeShape(ztunnel.shape, [run(899)], none), false);
  const cilium = entry('E3 long-lived, ztunnel upgraded in place', 'Cilium NoInterruptedConnections');
  assert.ok(cilium.shape);
  const e3 = (fin: number, reset: number) => ({
    ...run(1000),
    long_lived_fin: String(fin),
    long_lived_reset: String(reset),
  });
  assert.equal(judgeShape(cilium.shape, [e3(0, 0)], none), true);
  assert.equal(judgeShape(cilium.shape, [e3(6, 0)], none), false, 'a FIN at the deadline interrupts');
  assert.equal(judgeShape(cilium.shape, [e3(0, 1)], none), false);
});
