import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { parseDockerInfo } from './docker-info.ts';
import type { DockerInfo } from './docker-info.ts';

/** kind release the README and the nightly job use (`go install sigs.k8s.io/kind@<this>`). */
export const KIND_VERSION = 'v0.33.0';
const LOCAL_HINT = 'or run on the embedded cluster with --backend local';
/** `kind export logs` copies every node's journal and container logs: bounded, it runs on the failure path. */
const EXPORT_LOGS_TIMEOUT_MS = 120_000;

export interface KindToolsOptions {
  /** Executables (default `kind` and `docker` on PATH). */
  kind?: string;
  docker?: string;
  /** Where the commands run (the repository root). */
  buildContext: string;
  env?: Record<string, string>;
  /**
   * Cancels the long steps (kind create, kind load, docker save): execa sends SIGTERM,
   * then SIGKILL after 5 s. Never the teardown (`kind delete cluster`, `kind export logs`,
   * `kind get ...`), which must still run after an abort.
   */
  signal?: AbortSignal;
}

export interface LoadImagesOptions {
  name: string;
  images: readonly string[];
  /** `linux/<arch>` of the Docker engine, for the `docker save --platform` fallback (docker-info.ts). */
  platform?: string;
}

export interface KindTools {
  /** Throws ToolMissing (exit 2) naming what is missing and what to do. */
  checkInstalled(): Promise<{ kindVersion: string; dockerServerVersion: string }>;
  /** The engine's image store, cgroup version and architecture (`docker info`). */
  dockerInfo(): Promise<DockerInfo>;
  /** `kind get clusters`: the names of the kind clusters on this Docker engine. */
  listClusters(): Promise<string[]>;
  /** kind writes the cluster's credentials to `kubeconfig` only (never the user's ~/.kube/config). */
  createCluster(name: string, configYaml: string, waitS: number, kubeconfig: string): Promise<void>;
  /** `docker network rm`: our kind network once our cluster is gone (a network in use stays). */
  removeNetwork(name: string): Promise<void>;
  loadImages(options: LoadImagesOptions): Promise<void>;
  kubeconfig(name: string): Promise<string>;
  /** `kind export logs <dir> --name <name>`: nodes' journals, kubelet and container logs. */
  exportLogs(name: string, dir: string): Promise<void>;
  deleteCluster(name: string, kubeconfig: string): Promise<void>;
}

interface RunOptions {
  input?: string;
  /** Killed when the tools' signal aborts (the long steps only). */
  cancellable?: boolean;
  timeoutMs?: number;
}

/** The kind and docker CLIs through execa, each call's failure turned into a message that names it. */
export function createKindTools(options: KindToolsOptions): KindTools {
  const kind = options.kind ?? 'kind';
  const docker = options.docker ?? 'docker';
  const base = {
    cwd: options.buildContext,
    env: options.env ?? {},
    extendEnv: true,
    // kill-after-grace as execa recommends: SIGTERM, then SIGKILL after 5 s.
    forceKillAfterDelay: 5000,
  };
  const run = async (file: string, args: string[], how: RunOptions = {}): Promise<string> => {
    try {
      const result = await execa(file, args, {
        ...base,
        ...(how.input === undefined ? { stdin: 'ignore' as const } : { input: how.input }),
        ...(how.cancellable && options.signal ? { cancelSignal: options.signal } : {}),
        ...(how.timeoutMs === undefined ? {} : { timeout: how.timeoutMs }),
      });
      return result.stdout;
    } catch (err) {
      throw toolError(file, args, err, file === kind);
    }
  };
  const loadArchives = async ({ name, images, platform }: LoadImagesOptions): Promise<void> => {
    const dir = await mkdtemp(join(tmpdir(), 'kind-images-'));
    try {
      for (const [i, image] of images.entries()) {
        const file = join(dir, `${String(i)}.tar`);
        const only = platform ? ['--platform', platform] : [];
        await run(docker, ['save', ...only, '--output', file, image], { cancellable: true });
        await run(kind, ['load', 'image-archive', '--name', name, file], { cancellable: true });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  return {
    async checkInstalled() {
      const dockerServerVersion = await run(docker, ['version', '--format', '{{.Server.Version}}']);
      const kindVersion = (await run(kind, ['version'])).trim();
      return { kindVersion, dockerServerVersion: dockerServerVersion.trim() };
    },
    async dockerInfo() {
      return parseDockerInfo(await run(docker, ['info', '--format', '{{json .}}']));
    },
    async listClusters() {
      // "No kind clusters found." goes to stderr; stdout is one name a line.
      const out = await run(kind, ['get', 'clusters']);
      return out
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
    },
    async createCluster(name, configYaml, waitS, kubeconfig) {
      await run(
        kind,
        [
          'create',
          'cluster',
          '--name',
          name,
          '--kubeconfig',
          kubeconfig,
          '--config',
          '-',
          '--wait',
          `${String(waitS)}s`,
        ],
        { input: configYaml, cancellable: true },
      );
    },
    async removeNetwork(network) {
      // Best effort: a network another cluster still uses stays, and one that is gone is fine.
      await run(docker, ['network', 'rm', network]).catch(() => undefined);
    },
    async loadImages(load) {
      try {
        await run(kind, ['load', 'docker-image', '--name', load.name, ...load.images], { cancellable: true });
      } catch (err) {
        if (options.signal?.aborted) throw err;
        // kind's own workaround for the containerd image store (kind PR #4247): one platform saved
        // with `docker save --platform`, then `kind load image-archive`.
        await loadArchives(load).catch((fallback: unknown) => {
          throw new HarnessError(
            ErrorCode.ComponentFailed,
            `${(err as Error).message}; the fallback (docker save --platform, kind load image-archive) failed too: ${(fallback as Error).message}`,
            { cause: fallback },
          );
        });
      }
    },
    kubeconfig: (name) => run(kind, ['get', 'kubeconfig', '--name', name]),
    async exportLogs(name, dir) {
      await run(kind, ['export', 'logs', dir, '--name', name], { timeoutMs: EXPORT_LOGS_TIMEOUT_MS });
    },
    async deleteCluster(name, kubeconfig) {
      await run(kind, ['delete', 'cluster', '--name', name, '--kubeconfig', kubeconfig]);
    },
  };
}

function toolError(file: string, args: string[], err: unknown, isKind: boolean): HarnessError {
  const e = err as { code?: string; stderr?: string; shortMessage?: string; isCanceled?: boolean };
  const command = `${file} ${args.join(' ')}`;
  if (e.code === 'ENOENT') {
    const install = isKind
      ? `install it with \`go install sigs.k8s.io/kind@${KIND_VERSION}\` (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)`
      : 'install Docker (https://docs.docker.com/engine/install/)';
    return new HarnessError(
      ErrorCode.ToolMissing,
      `${file} not found on PATH; the kind backend needs it: ${install}, ${LOCAL_HINT}`,
      { cause: err },
    );
  }
  if (e.isCanceled) return new HarnessError(ErrorCode.Aborted, `${command} was cancelled`, { cause: err });
  const stderr = (e.stderr ?? '').trim().split('\n').slice(-5).join('\n');
  if (!isKind && args[0] === 'version')
    return new HarnessError(
      ErrorCode.ToolMissing,
      `Docker is installed but its engine does not answer (${command}: ${stderr || (e.shortMessage ?? '')}); start the Docker engine, ${LOCAL_HINT}`,
      { cause: err },
    );
  return new HarnessError(
    ErrorCode.ComponentFailed,
    `${command} failed: ${stderr || (e.shortMessage ?? String(err))}`,
    { cause: err },
  );
}
