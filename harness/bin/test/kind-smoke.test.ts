// `npm run kind-smoke` without Docker: the command as a process, kind and docker as fakes on PATH,
// the API as a double with a stand-in controller, and an HTTP server on the ingress port standing in
// for the gateway behind kind's port mapping. Where the stand-in plays the mesh it also writes what
// the gateway's Envoy and the destination's ztunnel log for each request, in the formats the local
// backend's real components write (harness/run/checks/mesh-path.test.ts reads those); the smoke reads
// them back through the API's pod logs. What this proves: the smoke's steps, its evidence and its
// verdict; not that a real cluster's mesh works (the README's kind checklist).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import type { ApiServerDouble } from '../../../clusters/kind/test/api-server-double.ts';
import { startKindDoubles } from '../../../clusters/kind/test/kind-fixtures.ts';
import { SMOKE_MARKER } from '../../run/checks/mesh-path.ts';
import { PROJECT_ROOT } from '../../paths.ts';

const SMOKE = join(PROJECT_ROOT, 'harness', 'bin', 'kind-smoke.ts');

/** What the stand-in reads of a pod the controller double made. */
interface PodLike {
  metadata?: { name?: string; namespace?: string };
  spec?: { containers?: { name: string }[] };
}

/** The mesh's log lines for one request, as the stand-in gateway serves it. */
function logMeshRequest(api: ApiServerDouble, path: string, lines: Map<string, string[]>): void {
  const pods = api.list('pods') as PodLike[];
  const gateway = pods.find((p) => p.metadata?.name?.startsWith('istio-ingressgateway'));
  const ztunnel = pods.find((p) => p.metadata?.name?.startsWith('ztunnel'));
  const add = (pod: PodLike | undefined, line: string): void => {
    if (!pod?.metadata?.name) return;
    const key = `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
    const all = [...(lines.get(key) ?? []), line];
    lines.set(key, all);
    for (const c of pod.spec?.containers ?? [])
      api.setLog(
        { namespace: pod.metadata.namespace ?? '', pod: pod.metadata.name, container: c.name },
        `${all.join('\n')}\n`,
      );
  };
  add(
    gateway,
    JSON.stringify({
      start_time: new Date().toISOString(),
      method: 'GET',
      path,
      response_code: 200,
      response_flags: '-',
      upstream_host: 'envoy://connect_originate/10.244.1.5:8080',
    }),
  );
  add(
    ztunnel,
    `${new Date().toISOString()}\tinfo\taccess\tconnection complete\tsrc.addr=10.244.2.3:40112 src.identity="spiffe://cluster.local/ns/istio-system/sa/istio-ingressgateway" dst.addr=10.244.1.5:15008 dst.hbone_addr=10.244.1.5:8080 dst.workload="httpbin-x" dst.namespace="default" dst.identity="spiffe://cluster.local/ns/default/sa/httpbin" direction="inbound" bytes_sent=564 bytes_recv=937 duration="12ms"`,
  );
}

for (const meshLogs of [true, false])
  test(
    `kind-smoke on fakes: ${meshLogs ? 'the mesh logs every request: exit 0' : 'no mesh in the logs: exit 3, with the evidence kept'}`,
    { timeout: 90_000 },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'kind-smoke-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const { api, fakes } = await startKindDoubles(t, 'ztunnel-harness-smoke');
      const lines = new Map<string, string[]>();
      const ingress = createServer((req, res) => {
        if (meshLogs && req.url?.includes(SMOKE_MARKER)) logMeshRequest(api, req.url, lines);
        res.writeHead(200, { 'content-length': 2 }).end('{}');
      });
      ingress.listen(0, '127.0.0.1');
      await once(ingress, 'listening');
      t.after(() => {
        ingress.close();
      });
      const port = (ingress.address() as AddressInfo).port;
      const result = await execa(
        process.execPath,
        [SMOKE, '--kind-ingress-port', String(port), '--results-dir', dir],
        {
          reject: false,
          stdin: 'ignore',
          timeout: 80_000,
          env: { PATH: fakes.path, FAKE_DIR: fakes.dir, ZTUNNEL_HARNESS_KIND_PROVISION: 'none' },
        },
      );
      const output = result.stdout + result.stderr;
      const calls = (await fakes.calls()).map((c) => `${c.tool} ${c.args.slice(0, 2).join(' ')}`);
      assert.ok(calls.includes('kind delete cluster'), 'the cluster is deleted');
      const [smokeDir = ''] = await readdir(join(dir, 'kind-smoke'));
      const saved = await readdir(join(dir, 'kind-smoke', smokeDir, 'pods'));
      assert.ok(
        saved.some((f) => f.startsWith('istio-system_istio-ingressgateway')),
        saved.join(' '),
      );
      if (meshLogs) {
        assert.equal(result.exitCode, 0, output);
        assert.match(result.stdout, /sent 30 requests: 30 answered 200/);
        assert.match(result.stdout, /the mesh works on kind/);
      } else {
        assert.equal(result.exitCode, 3, output);
        assert.match(
          result.stderr,
          /the mesh path on kind is not shown: the gateway's access log has 0 of the 30 requests; .*no ztunnel logged an inbound mTLS connection to httpbin/,
        );
      }
    },
  );
