import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import {
  consentToHostChange,
  DEFAULT_TOOLS_DIR,
  ErrorCode,
  HarnessError,
  makeDirectory,
} from '../../../lib/index.ts';
import { readMissingCapabilities } from './capabilities.ts';
import { installDockerEngine } from './install-docker.ts';
import { buildDaemonConfig, ENGINE_DIR, engineLayout } from './engine-layout.ts';
import type { EngineLayout } from './engine-layout.ts';
import { startEngineWatcher } from './engine-watcher.ts';
import type { EngineWatcher, WatchedCluster } from './engine-watcher.ts';
import type { LoggedStep } from '../../steps/step-runner.ts';
import { runcWrapperScript } from './runc-wrapper.ts';

/** How long a daemon we start may take to answer. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * The Docker engine a run uses: the user's when one answers (never reconfigured), else our own
 * dockerd (engine-layout.ts), reached through DOCKER_HOST. `release()` stops ours if this call started
 * it, and nothing otherwise.
 */
export interface DockerEngine {
  owner: 'user' | 'ours' | 'ours-started';
  /** What docker and kind need in their environment: `{ DOCKER_HOST }` for ours, nothing for the user's. */
  env: Record<string, string>;
  serverVersion: string;
  /** The wrapper was registered: privileged containers lose the capabilities this machine lacks. */
  wrapped: boolean;
  release(): Promise<void>;
  /**
   * Leaves ours running after this process ends (a kept cluster): the watcher that would stop it when
   * the run's process dies is dismissed. Nothing for an engine this call did not start.
   */
  keep(): Promise<void>;
  /** Tells the watcher which kind cluster to delete if the run's process dies (undefined: none). */
  noteCluster(cluster: WatchedCluster | undefined): Promise<void>;
}

export interface EngineOptions {
  layout?: EngineLayout;
  /** How long a daemon we start may take to answer (default 60 s). */
  startTimeoutMs?: number;
  /** The environment the user's engine is looked for with (DOCKER_HOST, PATH). */
  env?: NodeJS.ProcessEnv;
  /**
   * Ours, when started here, outlives this process (`npm run kind-engine -- start`). Otherwise a
   * watcher (engine-watcher.ts) stops it when this process dies without stopping it.
   */
  keepAfterExit?: boolean;
}

/** An engine this call did not start: nothing to release, keep or watch. */
const NOT_OURS_TO_STOP = {
  release: () => Promise.resolve(),
  keep: () => Promise.resolve(),
  noteCluster: () => Promise.resolve(),
};

/** `docker version` against an engine: its server version, or undefined when it does not answer. */
export async function engineVersion(env: Record<string, string | undefined>): Promise<string | undefined> {
  const r = await execa('docker', ['version', '--format', '{{.Server.Version}}'], {
    env,
    extendEnv: true,
    reject: false,
    timeout: 15_000,
    stdin: 'ignore',
  });
  return r.exitCode === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

/**
 * The engine that answers (the user's, then ours if running), else ours started: installed first when
 * missing (installDockerEngine), its config written, dockerd detached in its own session (a Ctrl-C to
 * the harness must not stop it before our cluster is deleted) and waited for.
 */
export async function ensureDockerEngine(
  step: LoggedStep,
  options: EngineOptions = {},
): Promise<DockerEngine> {
  const layout = options.layout ?? engineLayout();
  const env = options.env ?? process.env;
  // Where docker and dockerd are looked for (tests put fakes first).
  const path = { PATH: env['PATH'] };
  const userVersion = await engineVersion(path);
  if (userVersion) {
    step.note(
      `using the Docker engine that answers (server ${userVersion}; DOCKER_HOST=${env['DOCKER_HOST'] ?? 'default'})`,
      true,
    );
    return { owner: 'user', env: {}, serverVersion: userVersion, wrapped: false, ...NOT_OURS_TO_STOP };
  }
  const ours = { DOCKER_HOST: layout.dockerHost };
  const running = await engineVersion({ ...path, ...ours });
  const wrapped = (await readMissingCapabilities()).length > 0;
  if (running) {
    step.note(`using our Docker engine, already running (server ${running}, ${layout.dockerHost})`, true);
    return { owner: 'ours', env: ours, serverVersion: running, wrapped, ...NOT_OURS_TO_STOP };
  }
  await installDockerEngine(step, env);
  const pid = await startDaemon(step, layout, wrapped, env);
  // Watched from its start: a run killed while waiting for it to answer leaves it running otherwise.
  const watcher = options.keepAfterExit
    ? undefined
    : await startEngineWatcher({ daemonPid: pid, layout, env: { ...ours, PATH: env['PATH'] ?? '' } });
  const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const started = await waitForAnswer(step, layout, pid, { ...path, ...ours }, timeoutMs).catch(
    async (err: unknown) => {
      await watcher?.dismiss();
      throw err;
    },
  );
  step.note(
    `started our Docker engine (server ${started}, pid ${String(pid)}, ${layout.dockerHost}, log ${layout.log})`,
    true,
  );
  return {
    owner: 'ours-started',
    env: ours,
    serverVersion: started,
    wrapped,
    ...stopsOurs(layout, pid, watcher),
  };
}

/** What a run does with the daemon it started: stop it (watcher dismissed first), keep it, tell the watcher. */
function stopsOurs(
  layout: EngineLayout,
  pid: number,
  watcher: EngineWatcher | undefined,
): Pick<DockerEngine, 'release' | 'keep' | 'noteCluster'> {
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= (async () => {
        await watcher?.dismiss();
        await stopDaemon(layout, pid);
      })()),
    keep: async () => {
      await watcher?.dismiss();
    },
    noteCluster: async (cluster) => {
      await watcher?.noteCluster(cluster);
    },
  };
}

/** Where releases before 2026-11-29 kept the engine: the checkout's tools folder. */
const OLD_ENGINE_DIR = join(DEFAULT_TOOLS_DIR, 'kind', 'engine');

/**
 * The engine's folder made ours alone: created 0700, or, when it exists, owned by this (root) user
 * and written by no one else, else refused: root reads its config and runs its wrapper. The folder
 * of the checkout's tools a release before kept it in is moved here once (its images kept).
 */
async function ownEngineDir(step: LoggedStep, layout: EngineLayout): Promise<void> {
  if (layout.dir === ENGINE_DIR && existsSync(OLD_ENGINE_DIR) && !existsSync(layout.dir)) {
    await mkdir(dirname(layout.dir), { recursive: true, mode: 0o755 });
    await rename(OLD_ENGINE_DIR, layout.dir);
    step.note(
      `moved our engine's folder from ${OLD_ENGINE_DIR} to ${layout.dir} (root's, outside the checkout)`,
      true,
    );
  }
  await mkdir(layout.dir, { recursive: true, mode: 0o700 });
  const st = await stat(layout.dir);
  const uid = process.getuid?.() ?? 0;
  if (st.uid !== uid)
    throw new HarnessError(
      ErrorCode.BadInput,
      `${layout.dir} belongs to uid ${String(st.uid)}, not to this user (uid ${String(uid)}): our Docker daemon's config and runc wrapper must be root's alone; remove the folder or give it to root`,
    );
  if ((st.mode & 0o077) !== 0) await chmod(layout.dir, 0o700);
}

async function startDaemon(
  step: LoggedStep,
  layout: EngineLayout,
  wrapped: boolean,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  await consentToHostChange(
    {
      action: `start our Docker daemon (dockerd, socket ${layout.dockerHost}, data in ${layout.dir})`,
      effects: [
        "dockerd turns on net.ipv4.ip_forward and sets iptables' FORWARD policy to DROP, with its DOCKER chains",
        'the daemon is stopped after the run (one started by `npm run kind-engine -- start` is kept)',
      ],
      rerun: 'npm run kind-engine -- start --yes',
    },
    undefined,
    env,
  );
  await ownEngineDir(step, layout);
  await makeDirectory(layout.dataRoot);
  if (wrapped) {
    await writeFile(layout.wrapper, runcWrapperScript());
    await chmod(layout.wrapper, 0o755);
  }
  await writeFile(layout.config, `${JSON.stringify(buildDaemonConfig(layout, wrapped), null, 2)}\n`);
  step.note(
    `dockerd --config-file ${layout.config}${wrapped ? ' (with the runc wrapper: capabilities missing)' : ''}`,
  );
  const logFd = openSync(layout.log, 'a');
  try {
    const child = spawn('dockerd', ['--config-file', layout.config], {
      env,
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
    child.unref();
    const pid = child.pid;
    if (pid === undefined)
      throw new HarnessError(ErrorCode.ProvisionFailed, `dockerd did not start; its log: ${layout.log}`);
    return pid;
  } finally {
    closeSync(logFd);
  }
}

async function waitForAnswer(
  step: LoggedStep,
  layout: EngineLayout,
  pid: number,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    step.signal?.throwIfAborted();
    const version = await engineVersion(env);
    if (version) return version;
    const exited = !isAlive(pid);
    if (exited || Date.now() > deadline) {
      await stopDaemon(layout, pid);
      const tail = (await readFile(layout.log, 'utf8').catch(() => ''))
        .trim()
        .split('\n')
        .slice(-5)
        .join(' | ');
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `our dockerd ${exited ? 'exited' : `did not answer within ${String(timeoutMs / 1000)} s and was stopped`}: ${tail}; its log: ${layout.log}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone (the answer asked for); EPERM cannot happen for a child of ours as root.
    return false;
  }
}

/** SIGTERM to our dockerd (it stops its containers and its containerd), SIGKILL after 30 s. */
/** Whether `pid` is a dockerd running with this layout's config file (its command line, /proc). */
export async function isOurDaemon(pid: number, layout: Pick<EngineLayout, 'config'>): Promise<boolean> {
  const comm = (await readFile(`/proc/${String(pid)}/comm`, 'utf8').catch(() => '')).trim();
  const argv = (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const at = argv.indexOf('--config-file');
  return comm === 'dockerd' && at >= 0 && argv[at + 1] === layout.config;
}

export async function stopDaemon(layout: EngineLayout, pid?: number): Promise<void> {
  const target = pid ?? Number((await readFile(layout.pidfile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(target) || target <= 0 || !isAlive(target)) return;
  // A pidfile outlives its daemon, and its pid may be the user's dockerd now: only a dockerd started
  // with our config file is signalled on its word.
  if (pid === undefined && !(await isOurDaemon(target, layout))) return;
  process.kill(target, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(target) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  if (isAlive(target)) process.kill(target, 'SIGKILL');
}
