// A node for istio/ztunnel's binary in shared (in-pod) mode, in network namespaces: our ZDS node
// agent (mesh/zds) on a socket in a temp folder, a pod namespace with an app, and ztunnel
// instances each in a namespace of its own, as DaemonSet pods are (the binary binds fixed :15021,
// :15020, :15000, so two on one node need two namespaces). What the tests read: the agent's events,
// the listeners in a namespace (ss), readiness, an HBONE CONNECT through the pod's ztunnel.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { ClientHttp2Session } from 'node:http2';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { execa } from 'execa';
import { findOnPath } from '../../../lib/install/index.ts';
import { openHboneSession, openTunnel } from '../../../mesh/hbone/index.ts';
import { createCertificateAuthority } from '../../../mesh/pki/index.ts';
import type { WorkloadCertificate } from '../../../mesh/pki/index.ts';
import { ensureZdsRelay, startZdsNodeAgent, startZdsRelay } from '../../../mesh/zds/index.ts';
import type { ZdsAgentEvent, ZdsNodeAgent, ZdsPod } from '../../../mesh/zds/index.ts';
import { createNetworkWorld, netnsUnavailable } from '../../netns/network-world.ts';
import type { NetworkWorld, PodNetns } from '../../netns/network-world.ts';
import { localXdsConfig, readTestRoot, realZtunnelFromEnv } from '../upstream-ztunnel.ts';
import type { RealZtunnel } from '../upstream-ztunnel.ts';

export const WAIT_MS = 15_000;
/** The in-pod listeners every workload gets (src/config.rs: inbound, plaintext inbound, outbound). */
export const INPOD_PORTS = [15008, 15006, 15001];
export const POD_IDENTITY = 'spiffe://cluster.local/ns/default/sa/httpbin';

/** The binary and test root, or why this machine cannot run them (a skip message). */
export async function sharedZtunnelHere(): Promise<RealZtunnel | string> {
  const real = realZtunnelFromEnv(process.env);
  if (typeof real === 'string') return `istio/ztunnel not given: ${real}`;
  const why = await netnsUnavailable();
  if (why) return why;
  if (!(await findOnPath('go', process.env))) return 'needs go on PATH (to build zds-relay)';
  return real;
}

export async function waitFor(
  what: string,
  ok: () => Promise<boolean> | boolean,
  ms = WAIT_MS,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${String(ms)} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Listener {
  port: number;
  pids: number[];
  /** The socket's inode (ss -e): the same socket, or a new one bound in its place. */
  ino: number;
}

/** Listening TCP sockets in a namespace (ss -ltnpe run inside it). */
export async function listeners(netnsPath: string): Promise<Listener[]> {
  const { stdout } = await execa('nsenter', [`--net=${netnsPath}`, '--', 'ss', '-Hltnpe']);
  return stdout.split('\n').flatMap((line) => {
    const local = line.trim().split(/\s+/)[3];
    const port = Number(local?.slice(local.lastIndexOf(':') + 1));
    if (!Number.isInteger(port)) return [];
    const pids = [...line.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    return [{ port, pids: [...new Set(pids)], ino: Number(/ ino:(\d+)/.exec(line)?.[1]) }];
  });
}

/** The in-pod ports `pid` listens on in the namespace. */
export async function portsOf(netnsPath: string, pid: number): Promise<number[]> {
  const all = await listeners(netnsPath);
  return INPOD_PORTS.filter((p) => all.some((l) => l.port === p && l.pids.includes(pid)));
}

/** Whether a TCP connection to ip:port is accepted (from the host, routed into the world). */
export function accepts(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port, timeout: 2_000 });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => {
      done(true);
    });
    socket.once('error', () => {
      done(false);
    });
    socket.once('timeout', () => {
      done(false);
    });
  });
}

/** Runs argv in `pod`'s namespace, killed (by pid) after the test; its output lines are kept. */
export function runIn(
  t: TestContext,
  pod: PodNetns,
  argv: string[],
  env: Record<string, string>,
): { child: ChildProcess; log: string[] } {
  const [file = '', ...args] = pod.command(argv);
  const child = spawn(file, args, {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const log: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (l) => log.push(l));
  return { child, log };
}

/**
 * A TCP server on 0.0.0.0:`port` in the pod's namespace: writes the pod's name and a newline to
 * every connection, then echoes what it reads until the client ends its side.
 */
export async function startApp(t: TestContext, pod: PodNetns, port = 8080): Promise<ChildProcess> {
  const script =
    "require('node:net').createServer((s) => { s.write(process.env.POD_NAME + '\\n'); s.pipe(s); })" +
    `.listen(${String(port)}, '0.0.0.0', () => console.log('listening'))`;
  const app = runIn(t, pod, [process.execPath, '-e', script], { POD_NAME: pod.name });
  await waitFor(`the app on ${pod.name}:${String(port)}`, () => {
    if (app.child.exitCode !== null) throw new Error(`the app exited: ${app.log.join('\n')}`);
    return app.log.includes('listening');
  });
  return app.child;
}

/** An mTLS HTTP/2 session to the pod's ztunnel (:15008), the pod's identity checked. */
export function hboneSession(ip: string, cert: WorkloadCertificate): Promise<ClientHttp2Session> {
  return openHboneSession({ host: ip, cert, expectedIdentity: POD_IDENTITY, connectTimeoutMs: 5_000 });
}

/**
 * An HBONE CONNECT to the pod's app through its ztunnel, our side ended at once: the CONNECT's
 * status and everything the app wrote back (its name).
 */
export async function throughHbone(ip: string, cert: WorkloadCertificate): Promise<string> {
  const session = await hboneSession(ip, cert);
  try {
    const tunnel = await openTunnel(session, `${ip}:8080`);
    tunnel.stream.end();
    const chunks: Buffer[] = [];
    for await (const chunk of tunnel.stream) chunks.push(chunk as Buffer);
    return `${String(tunnel.status)} ${Buffer.concat(chunks).toString().trim()}`;
  } finally {
    session.destroy();
  }
}

const ZDS_LOG = /\t(inpod::|readiness|proxy::|drain|signal|access|app)\S*\t/;

export interface SharedZtunnel {
  child: ChildProcess;
  pid: number;
  /** Its own namespace (the DaemonSet pod's). */
  ns: PodNetns;
  log: string[];
  isReady(): Promise<boolean>;
  /** `:15021/healthz/ready`'s status and body (istio/ztunnel names the tasks not ready), or the error. */
  readiness(): Promise<string>;
  /** True while it runs; throws with its last log lines once it exited. */
  isAlive(): boolean;
  logHas(pattern: RegExp): boolean;
  /**
   * Resolves once a line matches (within 5 s): its log arrives on a pipe, apart from what it says
   * over ZDS, so a line written before an ack can be read after the ack.
   */
  logged(pattern: RegExp): Promise<void>;
  /** Its log's ZDS, readiness, listener, drain and access lines (not the config dump): for t.diagnostic. */
  zdsLog(): string;
}

/** Our node agent on a fresh relay at the node's socket; its events, by connection. */
export interface AgentUnderTest {
  agent: ZdsNodeAgent;
  events: ZdsAgentEvent[];
  /** The event kinds of connection `conn` (a nack as `nack: <error>`). */
  kinds: (conn: number) => string[];
}

export interface SharedNode {
  real: RealZtunnel;
  world: NetworkWorld;
  socketPath: string;
  /** The node's meshed pod (httpbin-1) and what the agent sends for it. */
  pod: PodNetns;
  zdsPod: ZdsPod;
  /** What a newly connected ztunnel is sent; tests edit it. */
  pods: ZdsPod[];
  /** A certificate for the gateway's identity, signed by the test root. */
  gatewayCert: WorkloadCertificate;
  startAgent(): Promise<AgentUnderTest>;
  startZtunnel(name: string): Promise<SharedZtunnel>;
}

export async function createSharedNode(t: TestContext, real: RealZtunnel): Promise<SharedNode> {
  const relayBinary = await ensureZdsRelay();
  const dir = mkdtempSync(join(tmpdir(), 'ztunnel-shared-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const world = await createNetworkWorld({ nodes: 1 });
  t.after(() => {
    world.close();
  });
  const pod = await world.addPod(1, 'httpbin-1');
  const localXds = join(dir, 'local-xds.yaml');
  writeFileSync(
    localXds,
    localXdsConfig({ name: pod.name, ip: pod.ip, namespace: 'default', serviceAccount: 'httpbin' }),
  );
  const socketPath = join(dir, 'ztunnel.sock');
  const zdsPod: ZdsPod = {
    uid: '0b6c2c5e-6f0e-4d4a-9d35-1c2f3a4b5c6d',
    workloadInfo: { name: pod.name, namespace: 'default', serviceAccount: 'httpbin' },
    netnsPath: pod.path,
  };
  const pods: ZdsPod[] = [zdsPod];
  const ca = await createCertificateAuthority({ root: readTestRoot(real) });
  const gatewayCert = await ca.issue({ namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' });

  const startAgent = async (): Promise<AgentUnderTest> => {
    const relay = await startZdsRelay({ binary: relayBinary, mode: 'serve', socketPath });
    const events: ZdsAgentEvent[] = [];
    const agent = startZdsNodeAgent({ relay, snapshot: () => pods, onEvent: (e) => events.push(e) });
    t.after(() => agent.close());
    const kinds = (conn: number): string[] =>
      events.filter((e) => e.conn === conn).map((e) => (e.kind === 'nack' ? `nack: ${e.error}` : e.kind));
    return { agent, events, kinds };
  };

  const startZtunnel = async (name: string): Promise<SharedZtunnel> => {
    const ns = await world.addPod(1, name);
    const { child, log } = runIn(t, ns, [real.binary], {
      // Shared is the default PROXY_MODE, and in-pod mode is on in it (src/config.rs).
      INPOD_UDS: socketPath,
      FAKE_CA: 'true',
      XDS_ADDRESS: '',
      LOCAL_XDS_PATH: localXds,
      NODE_NAME: 'node-1',
      POD_NAME: name,
      POD_NAMESPACE: 'istio-system',
      INSTANCE_IP: ns.ip,
      CONNECTION_TERMINATION_DEADLINE: '2s',
      // Original-source binding needs istio-cni's in-pod routing (mark 1337), not set up here.
      ENABLE_ORIG_SRC: 'false',
    });
    const pid = child.pid;
    assert.ok(pid !== undefined, `${name} did not start`);
    return {
      child,
      pid,
      ns,
      log,
      readiness: () => readiness(ns.ip),
      isReady: async () => (await readiness(ns.ip)).startsWith('200 '),
      isAlive: () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `istio/ztunnel ${name} exited (${String(child.exitCode ?? child.signalCode)}):\n${log.slice(-20).join('\n')}`,
          );
        return true;
      },
      logHas: (pattern) => log.some((l) => pattern.test(l)),
      logged: async (pattern) => {
        try {
          await waitFor(`${name} logs ${String(pattern)}`, () => log.some((l) => pattern.test(l)), 5_000);
        } catch (err) {
          throw new Error(`${String(err)}; its last lines:\n${log.slice(-10).join('\n')}`, { cause: err });
        }
      },
      zdsLog: () => [`${name} (pid ${String(pid)}):`, ...log.filter((l) => ZDS_LOG.test(l))].join('\n'),
    };
  };

  return { real, world, socketPath, pod, zdsPod, pods, gatewayCert, startAgent, startZtunnel };
}

/**
 * GET :15021/healthz/ready on a fresh connection, as the kubelet's prober: every test's world may
 * reuse the same addresses, and a keep-alive socket pooled by fetch in an earlier test is not this
 * test's ztunnel. Returns `<status> <body>`, or `error <reason>`: a failure says what it saw.
 */
function readiness(ip: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      { host: ip, port: 15021, path: '/healthz/ready', agent: false, timeout: 2_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve(`${String(res.statusCode)} ${body.trim()}`);
        });
        res.on('error', (err) => {
          resolve(`error ${err.message}`);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', (err) => {
      resolve(`error ${err.message}`);
    });
    req.end();
  });
}
