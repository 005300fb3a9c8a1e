// The in-cluster half of the mesh on kind, as far as it can be checked without Docker: the manifests
// against client-node's models, up() waiting for istiod (and tearing down when it never comes), and
// the ingress wait before load (real HTTP on loopback).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createSystemClock, ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import type { V1ClusterRole, V1Deployment } from '@kubernetes/client-node';
import { READINESS_PATH, READINESS_PORT } from '../../../mesh/control-plane/readiness-server.ts';
import { ROOT_CERT_NAMESPACES } from '../../../mesh/control-plane/root-cert-configmap.ts';
import {
  buildMeshManifests,
  ENVOY_XDS_ADDRESS,
  GATEWAY_NODE_PORT,
  IMAGES,
  isDaemonSet,
  isDeployment,
  isService,
  ZTUNNEL_READY_FILE,
} from '../../manifests/index.ts';
import { awaitServing } from '../await-serving.ts';
import { createKindBackend } from '../kind-backend.ts';
import { buildKindControlPlane, ENVOY_XDS_PORT_NAME } from '../kind-manifests.ts';
import { createKindTools } from '../kind-tools.ts';
import { validateAgainstModels } from '../model-check.ts';
import { startApiServerDouble } from './api-server-double.ts';
import { createFakeKindAndDocker, kindKubeconfig } from './fake-kind-docker.ts';
import { fakeProvision } from './fake-provision.ts';

/** kind's kubeconfig in a private folder of the run's (kind-options.ts privateKubeconfigPath), as one token. */
const privateKubeconfig = (args: readonly string[]): string[] =>
  args.map((a) => (/\/ztunnel-harness-kube-[0-9a-f]{16}\/kubeconfig$/.test(a) ? '<private>/kubeconfig' : a));

/** An HTTP server answering the given statuses in turn (the last one from then on). */
async function statusServer(t: { after: (fn: () => void) => void }, statuses: number[]) {
  let n = 0;
  const server = createServer((_req, res) => {
    res.writeHead(statuses[Math.min(n++, statuses.length - 1)] ?? 500).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.close();
  });
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/get`, count: () => n };
}

describe('kind mesh', () => {
  it('node-address ztunnel, NodePort gateway and istiod pass the model check and say what they are', () => {
    const mesh = buildMeshManifests({
      ztunnel: { graceS: 30, inPod: false },
      httpbin: { replicas: 2, mesh: 'ambient' },
      gateway: { mode: 'hbone', nodePort: GATEWAY_NODE_PORT },
    });
    const control = buildKindControlPlane('node-address');
    validateAgainstModels([...control, ...mesh]);
    assert.equal(
      control.filter((o) => o.kind === 'DaemonSet').length,
      0,
      'no node agent in node-address mode',
    );
    const ztunnel = mesh.find(isDaemonSet);
    const spec = ztunnel?.spec?.template.spec;
    assert.ok(spec);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.dnsPolicy, 'ClusterFirstWithHostNet');
    assert.deepEqual(
      spec.volumes?.map((v) => v.name),
      ['istio-token', 'istiod-ca-cert'],
      "the CA's token and root only: no ZDS socket without the CNI node agent",
    );
    const container = spec.containers[0];
    assert.ok(container);
    assert.deepEqual(container.readinessProbe?.exec?.command, ['test', '-e', ZTUNNEL_READY_FILE]);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env['INPOD_ENABLED'], 'false');
    assert.equal('ZDS_ADDRESS' in env, false);
    const gatewayService = mesh.filter(isService).find((o) => o.metadata?.name === 'istio-ingressgateway');
    assert.deepEqual(
      { type: gatewayService?.spec?.type, nodePort: gatewayService?.spec?.ports?.[0]?.nodePort },
      { type: 'NodePort', nodePort: GATEWAY_NODE_PORT },
    );
  });

  it("in-pod ztunnel and istio-cni's node agent pass the model check: the agent privileged on the node, ztunnel with the node's namespace pins", () => {
    const control = buildKindControlPlane();
    const mesh = buildMeshManifests({
      ztunnel: { graceS: 30, inPod: true, podNetnsByPath: true },
      httpbin: { replicas: 2, mesh: 'ambient' },
      gateway: { mode: 'hbone', nodePort: GATEWAY_NODE_PORT },
    });
    validateAgainstModels([...control, ...mesh]);
    const daemonSets = [...control, ...mesh].filter(isDaemonSet);
    const cni = daemonSets.find((d) => d.metadata?.name === 'istio-cni-node')?.spec?.template.spec;
    assert.ok(cni);
    assert.equal(cni.hostNetwork, true);
    assert.equal(cni.hostPID, true);
    const agent = cni.containers[0];
    assert.ok(agent);
    assert.equal(agent.securityContext?.privileged, true);
    assert.deepEqual(
      (agent.volumeMounts ?? []).map(
        (m) => `${m.mountPath}${m.mountPropagation ? ` (${m.mountPropagation})` : ''}`,
      ),
      [
        '/var/run/ztunnel',
        '/var/run/istio-cni',
        '/host/opt/cni/bin',
        '/host/etc/cni/net.d',
        '/var/run/netns (HostToContainer)',
      ],
    );
    const ztunnel = daemonSets.find((d) => d.metadata?.name === 'ztunnel')?.spec?.template.spec;
    assert.ok(ztunnel);
    assert.equal(ztunnel.hostNetwork, undefined);
    assert.equal(ztunnel.hostPID, undefined);
    const container = ztunnel.containers[0];
    assert.ok(container);
    assert.deepEqual(container.securityContext?.capabilities?.add, ['NET_ADMIN', 'SYS_ADMIN', 'NET_RAW']);
    const mounts = container.volumeMounts ?? [];
    assert.ok(mounts.some((m) => m.mountPath === '/var/run/netns' && m.readOnly === true));
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env['ZDS_ADDRESS'], '/var/run/ztunnel/ztunnel.sock');
    const istiod = control.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'istiod') as
      | { spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } } }
      | undefined;
    assert.deepEqual(istiod?.spec?.template?.spec?.containers?.[0]?.env?.[0], {
      name: 'AMBIENT_TUNNEL',
      value: 'pod',
    });
  });

  it("the debounce arm reaches our istiod on kind as PILOT_DEBOUNCE_AFTER (istiod's default 100 ms without it)", () => {
    const envOf = (objects: ReturnType<typeof buildKindControlPlane>) =>
      objects
        .filter((o) => o.kind === 'Deployment')
        .flatMap((o) => (o as V1Deployment).spec?.template.spec?.containers[0]?.env ?? [])
        .find((e) => e.name === 'PILOT_DEBOUNCE_AFTER')?.value;
    assert.equal(envOf(buildKindControlPlane()), '100');
    assert.equal(envOf(buildKindControlPlane('in-pod', { debounceAfterMs: 1000 })), '1000');
  });

  it("the gateway's and the sidecar's istio-proxy (pilot-agent + Envoy) find on kind what they need", () => {
    const control = buildKindControlPlane('node-address');
    const mesh = buildMeshManifests({
      ztunnel: { graceS: 30, inPod: false },
      httpbin: {
        replicas: 1,
        mesh: 'off',
        sidecar: { exitOnZeroActiveConnections: false },
      },
      gateway: { mode: 'hbone', nodePort: GATEWAY_NODE_PORT },
    });
    validateAgainstModels([...control, ...mesh]);
    // Envoy's mTLS ADS: the address pilot-agent dials is a port istiod's Service and container expose.
    const [xdsHost = '', xdsPort = ''] = ENVOY_XDS_ADDRESS.split(':');
    assert.equal(xdsHost, 'istiod.istio-system.svc');
    const istiodService = control.filter(isService).find((s) => s.metadata?.name === 'istiod');
    const servicePort = istiodService?.spec?.ports?.find((p) => p.port === Number(xdsPort));
    assert.deepEqual(
      { name: servicePort?.name, targetPort: servicePort?.targetPort },
      { name: ENVOY_XDS_PORT_NAME, targetPort: 15011 },
    );
    const istiod = control.filter(isDeployment).find((d) => d.metadata?.name === 'istiod');
    const discovery = istiod?.spec?.template.spec?.containers[0];
    assert.ok(discovery);
    const ports = discovery.ports ?? [];
    assert.ok(ports.some((p) => p.containerPort === 15011 && p.name === ENVOY_XDS_PORT_NAME));
    // Ready only once the root ConfigMaps the proxies mount are written: the process's /ready, not
    // a TCP probe on a port that listens before them (issue 33, prediction 6).
    assert.deepEqual(discovery.readinessProbe?.httpGet, { path: READINESS_PATH, port: READINESS_PORT });
    assert.equal(discovery.readinessProbe.tcpSocket, undefined);
    assert.ok(ports.some((p) => p.containerPort === READINESS_PORT));
    // The CA's needs: TokenReview of the proxies' tokens and the root ConfigMap it writes.
    const role = control.find((o) => o.kind === 'ClusterRole') as V1ClusterRole | undefined;
    const can = (resource: string, verb: string): boolean =>
      role?.rules?.some((r) => r.resources?.includes(resource) && r.verbs.includes(verb)) ?? false;
    assert.ok(can('tokenreviews', 'create') && can('configmaps', 'create') && can('pods', 'watch'));
    // Each proxy: the proxyv2 image as `proxy router|sidecar`, that xDS address, the CA's token and
    // root mounted from volumes of its pod, the root ConfigMap in a namespace istiod writes it into.
    const proxies = mesh.filter(isDeployment).flatMap((d) => {
      const spec = d.spec?.template.spec;
      const proxy = spec?.containers.find((c) => c.name === 'istio-proxy');
      return proxy && spec ? [{ namespace: d.metadata?.namespace ?? '', spec, proxy }] : [];
    });
    assert.deepEqual(proxies.map((p) => [p.namespace, ...(p.proxy.args ?? [])]).sort(), [
      ['default', 'proxy', 'sidecar'],
      ['istio-system', 'proxy', 'router'],
    ]);
    for (const { namespace, spec, proxy } of proxies) {
      assert.equal(proxy.image, IMAGES.proxy);
      assert.equal(proxy.env?.find((e) => e.name === 'XDS_ADDRESS')?.value, ENVOY_XDS_ADDRESS);
      const volumes = new Map((spec.volumes ?? []).map((v) => [v.name, v]));
      for (const mount of proxy.volumeMounts ?? []) assert.ok(volumes.has(mount.name), mount.name);
      assert.equal(
        volumes.get('istio-token')?.projected?.sources?.[0]?.serviceAccountToken?.audience,
        'istio-ca',
      );
      assert.equal(volumes.get('istiod-ca-cert')?.configMap?.name, 'istio-ca-root-cert');
      assert.ok((ROOT_CERT_NAMESPACES as readonly string[]).includes(namespace), namespace);
    }
  });

  it('waits for three 200s in a row from the ingress; fails at the deadline naming the last answer', async (t) => {
    const clock = createSystemClock();
    const flaky = await statusServer(t, [503, 200, 503, 200]);
    await awaitServing({ url: flaky.url, clock, deadlineMs: clock.now() + 10_000 });
    assert.equal(flaky.count(), 6, '503, 200, 503, then three 200s');
    const down = await statusServer(t, [503]);
    await assert.rejects(
      awaitServing({ url: down.url, clock, deadlineMs: clock.now() + 700 }),
      (err: unknown) => isHarnessError(err, ErrorCode.ComponentFailed) && /last: HTTP 503/.test(err.message),
    );
  });

  it('up() waits for istiod; when it never rolls out, up() fails naming it and deletes the cluster', async (t) => {
    const api = await startApiServerDouble(); // no controller: istiod never becomes ready
    t.after(() => api.close());
    const fakes = await createFakeKindAndDocker(kindKubeconfig('istiod-test', api.url));
    const tools = createKindTools({
      buildContext: PROJECT_ROOT,
      env: { PATH: fakes.path, FAKE_DIR: fakes.dir },
    });
    const backend = createKindBackend({
      name: 'istiod-test',
      projectRoot: PROJECT_ROOT,
      tools,
      provision: fakeProvision({ PATH: fakes.path, FAKE_DIR: fakes.dir }),
      // Not the default 18080, which a real kind run on this machine may hold (up() checks it is free).
      ingressHostPort: 18390,
      controlPlaneTimeoutMs: 500,
    });
    t.after(() => backend.close());
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        isHarnessError(err, ErrorCode.ComponentFailed) &&
        /Deployment istio-system\/istiod in kind cluster istiod-test to be rolled out/.test(err.message),
    );
    const deletes = (await fakes.calls()).filter((c) => c.args[0] === 'delete');
    assert.deepEqual(
      deletes.map((c) => privateKubeconfig(c.args)),
      [['delete', 'cluster', '--name', 'istiod-test', '--kubeconfig', '<private>/kubeconfig']],
    );
  });
});
