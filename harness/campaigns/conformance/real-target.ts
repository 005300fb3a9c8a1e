// istio/ztunnel's own binary as a drain target, brought by the user (never built or shipped here).
// It runs in dedicated mode (PROXY_MODE=dedicated: one process serving the network namespace it runs
// in, as a sidecar would; not production ambient, where one shared instance per node serves every pod
// through ZDS) inside a pod's network namespace, next to our httpbin, with a static workload config
// (LOCAL_XDS_PATH, XDS off) and FAKE_CA, which needs a binary built with the `testing` feature: its
// certificates are signed by istio/ztunnel's public test root (src/tls/root-cert.pem, ca-key.pem in
// its repository), and ours for the probing client by the same root, so the two trust each other.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createNetworkWorld, netnsUnavailable } from '../../../clusters/netns/network-world.ts';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { createCertificateAuthority } from '../../../mesh/pki/index.ts';
import type { WorkloadCertificate } from '../../../mesh/pki/index.ts';
import type { DrainTarget } from './drain-probe.ts';
import {
  localXdsConfig,
  readTestRoot,
  realZtunnelFromEnv,
} from '../../../clusters/local/upstream-ztunnel.ts';
import type { RealZtunnel } from '../../../clusters/local/upstream-ztunnel.ts';
export { localXdsConfig, realZtunnelFromEnv } from '../../../clusters/local/upstream-ztunnel.ts';
export type { RealZtunnel } from '../../../clusters/local/upstream-ztunnel.ts';
import { GATEWAY_IDENTITY, POD_SPIFFE } from './model-target.ts';

function lines(child: ChildProcess, into: string[]): void {
  for (const stream of [child.stdout, child.stderr])
    if (stream) createInterface({ input: stream }).on('line', (l) => into.push(l));
}

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`${what} not within ${String(ms)} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The binary and test root from the environment, when this machine can also run it (root, network
 * namespaces); else why not, in words a skipped test or a command prints.
 */
export async function realZtunnelHere(
  env: Readonly<Record<string, string | undefined>>,
): Promise<RealZtunnel | string> {
  const real = realZtunnelFromEnv(env);
  if (typeof real === 'string') return `istio/ztunnel not given: ${real}`;
  const why = await netnsUnavailable();
  return why ? `istio/ztunnel runs in a network namespace: ${why}` : real;
}

/** istio/ztunnel serving one pod (its own network namespace) whose app is `app`, ready. */
export interface RealZtunnelPod {
  ip: string;
  /** The ztunnel process (its pid is the binary's: setpriv and nsenter exec it). */
  ztunnel: ChildProcess;
  logLines: () => string[];
  /** A certificate for the probing client, signed by the test root the ztunnel trusts. */
  clientCert: WorkloadCertificate;
  close: () => Promise<void>;
}

export async function startRealZtunnelPod(options: {
  real: RealZtunnel;
  deadlineMs: number;
  /** The app's argv, run in the pod's namespace; it must listen on 0.0.0.0:8080. */
  app: string[];
  /** The app's stdout line saying it listens. */
  appListening: RegExp;
}): Promise<RealZtunnelPod> {
  const ca = await createCertificateAuthority({ root: readTestRoot(options.real) });
  const world = await createNetworkWorld({ nodes: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'real-ztunnel-'));
  const children: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
    for (const c of running) c.kill('SIGKILL');
    await Promise.all(exited);
    world.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pod = await world.addPod(1, 'httpbin-real');
    const run = (argv: string[], env: Record<string, string>, into: string[]): ChildProcess => {
      const [file = '', ...args] = pod.command(argv);
      const child = spawn(file, args, {
        env: { PATH: process.env['PATH'] ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      lines(child, into);
      return child;
    };
    const appLog: string[] = [];
    run(options.app, { PORT: '8080', POD_NAME: pod.name }, appLog);
    await waitFor('the app listening', () => appLog.some((l) => options.appListening.test(l)), 10_000);
    const config = join(dir, 'local-xds.yaml');
    writeFileSync(config, localXdsConfig(pod));
    const ztLog: string[] = [];
    const ztunnel = run(
      [options.real.binary],
      {
        FAKE_CA: 'true',
        XDS_ADDRESS: '',
        LOCAL_XDS_PATH: config,
        PROXY_MODE: 'dedicated',
        PROXY_WORKLOAD_INFO: `default/${pod.name}/httpbin`,
        CONNECTION_TERMINATION_DEADLINE: `${String(options.deadlineMs)}ms`,
        // Original-source binding needs IP_TRANSPARENT routing the namespace does not have.
        ENABLE_ORIG_SRC: 'false',
      },
      ztLog,
    );
    await waitFor(
      `istio/ztunnel ready (GET http://${pod.ip}:15021/healthz/ready)`,
      async () => {
        if (ztunnel.exitCode !== null)
          throw new Error(
            `istio/ztunnel exited ${String(ztunnel.exitCode)}:\n${ztLog.slice(-20).join('\n')}`,
          );
        return fetch(`http://${pod.ip}:15021/healthz/ready`).then(
          (r) => r.ok,
          () => false,
        );
      },
      20_000,
    );
    return {
      ip: pod.ip,
      ztunnel,
      logLines: () => ztLog,
      clientCert: await ca.issue(GATEWAY_IDENTITY),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function startRealTarget(options: {
  real: RealZtunnel;
  deadlineMs: number;
}): Promise<DrainTarget & { close(): Promise<void> }> {
  const pod = await startRealZtunnelPod({
    ...options,
    app: [process.execPath, join(PROJECT_ROOT, 'apps/fault-server/main.ts')],
    appListening: /listening/,
  });
  const { ztunnel } = pod;
  return {
    hboneHost: pod.ip,
    hbonePort: 15008,
    appAuthority: `${pod.ip}:8080`,
    podIdentity: POD_SPIFFE,
    clientCert: pod.clientCert,
    terminate: () => ztunnel.kill('SIGTERM'),
    logLines: pod.logLines,
    deadlineMs: options.deadlineMs,
    settled: async () => {
      if (ztunnel.exitCode === null && ztunnel.signalCode === null)
        await Promise.race([once(ztunnel, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
    },
    close: pod.close,
  };
}
