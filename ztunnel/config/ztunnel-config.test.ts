import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_ZDS_SOCKET } from '../node-agent/zds-client.ts';
import { ISTIO_DEFAULT_PATHS } from './xds-config.ts';
import { DEFAULT_ZDS_RELAY, parseZtunnelConfig } from './ztunnel-config.ts';

const pid = 4242;
const none = (): boolean => false;

test("our chart's environment: node-address and in-pod modes, names and defaults", () => {
  const nodeMode = parseZtunnelConfig(
    {
      NODE_NAME: 'node-1',
      NODE_IP: '10.0.0.2',
      INPOD_ENABLED: 'false',
      XDS_ADDRESS: 'cp.mesh:15010',
      CA_ADDRESS: 'https://cp.mesh:15012',
      TERMINATION_GRACE_PERIOD_SECONDS: '30',
      READY_FILE: '/tmp/ready',
      POOL_BACKOFF: 'true',
    },
    { pid, exists: none },
  );
  assert.deepEqual(
    {
      instance: nodeMode.instance,
      adminIp: nodeMode.adminIp,
      inPod: nodeMode.inPod,
      zdsPath: nodeMode.zdsPath,
      drainDeadlineMs: nodeMode.drainDeadlineMs,
      xds: nodeMode.xds?.protocol,
      readyFile: nodeMode.readyFile,
      poolBackoff: nodeMode.poolBackoff,
      readCloseKinds: nodeMode.readCloseKinds,
      caAddress: nodeMode.caAddress,
    },
    {
      instance: 'node-1/4242',
      adminIp: '10.0.0.2',
      inPod: false,
      zdsPath: undefined,
      drainDeadlineMs: 25_000,
      xds: 'json-lines',
      readyFile: '/tmp/ready',
      poolBackoff: true,
      readCloseKinds: false,
      caAddress: 'https://cp.mesh:15012',
    },
  );
  const inPod = parseZtunnelConfig(
    {
      NODE_NAME: 'node-1',
      NODE_IP: '10.0.0.2',
      INSTANCE_IP: '10.244.1.7',
      INSTANCE: 'ztunnel-abc',
      ZDS_ADDRESS: '/run/zds.sock',
      DRAIN_STRATEGY: 'evict-on-removal',
      PLANTED_REGRESSION: 'deadline-early',
      CONNECTION_TERMINATION_DEADLINE: '25s',
    },
    { pid, exists: none },
  );
  assert.equal(inPod.instance, 'ztunnel-abc');
  assert.equal(inPod.adminIp, '10.244.1.7', "readiness binds this instance's own address");
  assert.equal(inPod.zdsPath, '/run/zds.sock');
  assert.equal(inPod.drainStrategy, 'evict-on-removal');
  assert.equal(inPod.xds, undefined);
  assert.equal(inPod.drainDeadlineMs < 25_000, true, 'the planted regression ends the drain early');
  assert.equal(inPod.zdsRelay, DEFAULT_ZDS_RELAY);
});

test("Istio's chart: INSTANCE_IP and POD_NAME stand in; INPOD_UDS is istio-cni's socket, with the relay", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ztunnel-config-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const root = join(dir, 'root-cert.pem');
  writeFileSync(root, 'a root');
  const env = {
    NODE_NAME: 'node-1',
    INSTANCE_IP: '10.244.1.7',
    POD_NAME: 'ztunnel-x',
    POD_NAMESPACE: 'istio-system',
    XDS_ADDRESS: 'https://istiod.istio-system.svc:15012',
    CA_ROOT_CA: root,
    INPOD_UDS: '/var/run/ztunnel/z.sock',
  };
  const config = parseZtunnelConfig(env, { pid, exists: (path) => path === DEFAULT_ZDS_RELAY });
  assert.deepEqual(
    {
      nodeIp: config.nodeIp,
      instance: config.instance,
      inPod: config.inPod,
      zdsPath: config.zdsPath,
      xds: config.xds?.protocol,
      token: config.caEnv['AUTH_TOKEN'],
    },
    {
      nodeIp: '10.244.1.7',
      instance: 'ztunnel-x',
      inPod: true,
      zdsPath: '/var/run/ztunnel/z.sock',
      xds: 'delta-ads',
      token: ISTIO_DEFAULT_PATHS.AUTH_TOKEN,
    },
  );
  assert.equal(
    parseZtunnelConfig({ ...env, INPOD_UDS: '' }, { pid, exists: () => true }).zdsPath,
    DEFAULT_ZDS_SOCKET,
  );
  assert.throws(
    () => parseZtunnelConfig(env, { pid, exists: none }),
    /Expected ZDS_RELAY to name the zds-relay binary .*got "\/usr\/local\/bin\/zds-relay": not there/,
  );
  assert.throws(
    () => parseZtunnelConfig({ ...env, DRAIN_STRATEGY: 'evict-on-removal' }, { pid, exists: () => true }),
    /Expected DRAIN_STRATEGY none with istiod's protocols/,
  );
  // Without istiod's protocols, in-pod mode is our node agent's socket and ZDS_ADDRESS must name it.
  assert.throws(
    () => parseZtunnelConfig({ NODE_NAME: 'n', NODE_IP: '10.0.0.2' }, { pid, exists: none }),
    /^Error: Expected ZDS_ADDRESS to be set, got nothing$/,
  );
});

test('bad settings are refused before anything starts, each naming the variable and the value', () => {
  const base = { NODE_NAME: 'node-1', NODE_IP: '10.0.0.2', ZDS_ADDRESS: '/run/zds.sock' };
  const cases: [Record<string, string>, RegExp][] = [
    [{ NODE_NAME: '' }, /Expected NODE_NAME to be set, got nothing/],
    [{ NODE_IP: '' }, /Expected NODE_IP to be set, got nothing/],
    [{ INPOD_ENABLED: 'yes' }, /Expected INPOD_ENABLED to be true or false, got "yes"/],
    [{ INPOD_ENABLED: 'false' }, /Expected XDS_ADDRESS to be set with INPOD_ENABLED=false/],
    [
      { INPOD_ENABLED: 'false', XDS_ADDRESS: 'cp:15010', DRAIN_STRATEGY: 'evict-on-removal' },
      /Expected DRAIN_STRATEGY none with INPOD_ENABLED=false, got evict-on-removal/,
    ],
    [{ DRAIN_STRATEGY: 'sometimes' }, /DRAIN_STRATEGY/],
    [{ TERMINATION_GRACE_PERIOD_SECONDS: '-1' }, /TERMINATION_GRACE_PERIOD_SECONDS.*"-1"/],
    [{ XDS_ADDRESS: 'istiod' }, /host:port or an https:\/\/ URL, got "istiod"/],
  ];
  for (const [change, message] of cases)
    assert.throws(() => parseZtunnelConfig({ ...base, ...change }, { pid, exists: none }), message);
});
