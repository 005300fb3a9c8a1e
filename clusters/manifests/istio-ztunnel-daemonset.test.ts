// The ztunnel DaemonSet made istio/ztunnel's binary's (--ztunnel-impl istio-shared on kind): what
// Istio's chart sets (manifests/charts/ztunnel/templates/daemonset.yaml), our control plane's address
// for its delta ADS and gRPC CA, and what the experiment's DaemonSet keeps (grace, surge, socket).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asIstioZtunnel, buildZtunnelDaemonSet, ISTIOD_ZTUNNEL_XDS } from './index.ts';

const envOf = (ds: ReturnType<typeof asIstioZtunnel>): Map<string, string> =>
  new Map(
    (ds.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [
      e.name,
      e.value ?? `<${e.valueFrom?.fieldRef?.fieldPath ?? ''}>`,
    ]),
  );

describe("istio/ztunnel's binary as the ztunnel DaemonSet", () => {
  const ours = buildZtunnelDaemonSet({
    graceS: 45,
    inPod: true,
    podNetnsByPath: true,
    env: { POOL_BACKOFF: 'true' },
  });
  const ds = asIstioZtunnel(ours, 'ztunnel-harness/istio-ztunnel:0123456789abcdef');
  const container = ds.spec?.template.spec?.containers[0];
  if (!container) throw new Error('no container');
  const security = container.securityContext ?? {};

  it("runs the image with the chart's args and security context", () => {
    assert.equal(container.image, 'ztunnel-harness/istio-ztunnel:0123456789abcdef');
    assert.deepEqual(container.args, ['proxy', 'ztunnel']);
    assert.deepEqual(security.capabilities?.add, ['NET_ADMIN', 'SYS_ADMIN', 'NET_RAW']);
    assert.equal(security.runAsUser, 0);
    assert.equal(security.readOnlyRootFilesystem, true);
  });

  it('asks our control plane for discovery and certificates, with the projected token and the mesh root', () => {
    const env = envOf(ds);
    assert.equal(ISTIOD_ZTUNNEL_XDS, 'https://istiod.istio-system.svc:15013');
    assert.equal(env.get('XDS_ADDRESS'), ISTIOD_ZTUNNEL_XDS);
    assert.equal(env.get('CA_ADDRESS'), ISTIOD_ZTUNNEL_XDS);
    assert.equal(env.get('XDS_ROOT_CA'), '/var/run/secrets/istio/root-cert.pem');
    assert.equal(env.get('CA_ROOT_CA'), '/var/run/secrets/istio/root-cert.pem');
    assert.equal(env.get('AUTH_TOKEN'), '/var/run/secrets/tokens/istio-token');
    assert.equal(env.get('INPOD_ENABLED'), 'true');
    assert.equal(env.get('POD_NAME'), '<metadata.name>');
    assert.equal(env.get('NODE_NAME'), '<spec.nodeName>');
    // Each variable once; ours-only ones gone.
    const names = (container.env ?? []).map((e) => e.name);
    assert.equal(new Set(names).size, names.length);
    for (const gone of ['ZDS_ADDRESS', 'NODE_IP', 'INSTANCE']) assert.equal(env.has(gone), false, gone);
  });

  it('keeps the grace period and its TERMINATION_GRACE_PERIOD_SECONDS, the arms, the surge, the socket and the probe', () => {
    const env = envOf(ds);
    assert.equal(ds.spec?.template.spec?.terminationGracePeriodSeconds, 45);
    assert.equal(env.get('TERMINATION_GRACE_PERIOD_SECONDS'), '45');
    assert.equal(env.get('POOL_BACKOFF'), 'true');
    assert.deepEqual(ds.spec, { ...ours.spec, template: ds.spec.template });
    assert.ok(container.volumeMounts?.some((m) => m.mountPath === '/var/run/ztunnel'));
    assert.deepEqual(container.readinessProbe?.httpGet?.port, 15021);
    // The input is not changed.
    assert.equal(ours.spec?.template.spec?.containers[0]?.args, undefined);
  });
});
