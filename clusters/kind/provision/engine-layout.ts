import { join } from 'node:path';

/**
 * Where our own Docker daemon keeps its things, apart from any daemon the user runs: its config,
 * data root, log and the runc wrapper in a root-owned folder of its own outside the checkout (a
 * checkout is often its user's to write, and root runs the wrapper and reads the config; images
 * survive between runs: the node image is built once); its socket, pidfile and exec root under
 * /run, short enough for the unix socket paths containerd makes below the exec root.
 */
export interface EngineLayout {
  dir: string;
  config: string;
  dataRoot: string;
  log: string;
  wrapper: string;
  execRoot: string;
  pidfile: string;
  socket: string;
  /** DOCKER_HOST for the docker CLI and kind. */
  dockerHost: string;
  /** The kind cluster a run made on a daemon it started, for the watcher to delete if the run dies. */
  watchFile: string;
  /** The engine watcher's log (engine-watcher.ts). */
  watcherLog: string;
}

/** Our daemon's folder: root's, 0700. */
export const ENGINE_DIR = '/var/lib/ztunnel-harness/engine';

export function engineLayout(dir = ENGINE_DIR, runDir = '/run'): EngineLayout {
  const socket = join(runDir, 'ztunnel-harness-docker.sock');
  return {
    dir,
    config: join(dir, 'daemon.json'),
    dataRoot: join(dir, 'data'),
    log: join(dir, 'dockerd.log'),
    wrapper: join(dir, 'runc-harness'),
    execRoot: join(runDir, 'ztunnel-harness-docker'),
    pidfile: join(runDir, 'ztunnel-harness-docker.pid'),
    socket,
    dockerHost: `unix://${socket}`,
    watchFile: join(runDir, 'ztunnel-harness-docker.cluster.json'),
    watcherLog: join(dir, 'watcher.log'),
  };
}

/** The runtime name our daemon registers the wrapper under. */
export const WRAPPER_RUNTIME = 'harness-runc';

/**
 * dockerd's config (`--config-file`): its own socket (group root: only root reaches it, never the
 * `docker` group's members), data root, exec root and pidfile; no default
 * bridge (kind makes its own network, and nothing else of ours needs one: a daemon of ours must not
 * take docker0 from a daemon the user starts later); the runc wrapper as the default runtime only
 * where capabilities are missing (runc-wrapper.ts).
 */
export function buildDaemonConfig(layout: EngineLayout, useWrapper: boolean): Record<string, unknown> {
  return {
    hosts: [layout.dockerHost],
    group: 'root',
    'data-root': layout.dataRoot,
    'exec-root': layout.execRoot,
    pidfile: layout.pidfile,
    bridge: 'none',
    'storage-driver': 'overlay2',
    ...(useWrapper
      ? { runtimes: { [WRAPPER_RUNTIME]: { path: layout.wrapper } }, 'default-runtime': WRAPPER_RUNTIME }
      : {}),
  };
}
