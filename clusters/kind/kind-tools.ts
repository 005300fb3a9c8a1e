import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** kind release the README and the nightly job use (`go install sigs.k8s.io/kind@<this>`). */
export const KIND_VERSION = 'v0.33.0';
const LOCAL_HINT = 'or run on the embedded cluster with --backend local';

export interface KindToolsOptions {
  /** Executables (default `kind` and `docker` on PATH). */
  kind?: string;
  docker?: string;
  /** Where `docker build` runs (the repository root, with the Dockerfile). */
  buildContext: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

export interface KindTools {
  /** Throws ToolMissing (exit 2) naming what is missing and what to do. */
  checkInstalled(): Promise<{ kindVersion: string; dockerServerVersion: string }>;
  /** kind writes the cluster's credentials to `kubeconfig` only (never the user's ~/.kube/config). */
  createCluster(name: string, configYaml: string, waitS: number, kubeconfig: string): Promise<void>;
  buildImage(image: string, target: string): Promise<void>;
  loadImages(name: string, images: readonly string[]): Promise<void>;
  kubeconfig(name: string): Promise<string>;
  deleteCluster(name: string, kubeconfig: string): Promise<void>;
}

/** The kind and docker CLIs through execa, each call's failure turned into a message that names it. */
export function createKindTools(options: KindToolsOptions): KindTools {
  const kind = options.kind ?? 'kind';
  const docker = options.docker ?? 'docker';
  const base = {
    cwd: options.buildContext,
    env: options.env ?? {},
    extendEnv: true,
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    // kill-after-grace as execa recommends: SIGTERM, then SIGKILL after 5 s.
    forceKillAfterDelay: 5000,
  };
  const run = async (file: string, args: string[], input?: string): Promise<string> => {
    try {
      const result = await execa(
        file,
        args,
        input === undefined ? { ...base, stdin: 'ignore' } : { ...base, input },
      );
      return result.stdout;
    } catch (err) {
      throw toolError(file, args, err, file === kind);
    }
  };
  return {
    async checkInstalled() {
      const dockerServerVersion = await run(docker, ['version', '--format', '{{.Server.Version}}']);
      const kindVersion = (await run(kind, ['version'])).trim();
      return { kindVersion, dockerServerVersion: dockerServerVersion.trim() };
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
        configYaml,
      );
    },
    async buildImage(image, target) {
      await run(docker, ['build', '--target', target, '--tag', image, '--file', 'Dockerfile', '.']);
    },
    async loadImages(name, images) {
      await run(kind, ['load', 'docker-image', '--name', name, ...images]);
    },
    kubeconfig: (name) => run(kind, ['get', 'kubeconfig', '--name', name]),
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
