import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Progress } from '../../lib/index.ts';
import { K6_VERSION } from './k6-version.ts';

/** Where k6's release assets live; `K6_DOWNLOAD_BASE_URL` points elsewhere (a mirror, or a test). */
export const K6_RELEASES_URL = 'https://github.com/grafana/k6/releases/download';

export interface K6Asset {
  name: string;
  url: string;
  checksumsUrl: string;
}

/** k6's release asset names: `k6-v2.2.0-linux-amd64.tar.gz`, `k6-v2.2.0-macos-arm64.zip`, ... */
export function describeK6Asset(baseUrl: string, platform: string, arch: string): K6Asset {
  const os = ({ linux: 'linux', darwin: 'macos', win32: 'windows' } as Record<string, string>)[platform];
  const cpu = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[arch];
  if (!os || !cpu) {
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `k6 publishes no release for ${platform}/${arch}; install k6 v${K6_VERSION} yourself and put it on PATH`,
    );
  }
  const ext = os === 'linux' ? 'tar.gz' : 'zip';
  const name = `k6-v${K6_VERSION}-${os}-${cpu}.${ext}`;
  const dir = `${baseUrl.replace(/\/$/, '')}/v${K6_VERSION}`;
  return { name, url: `${dir}/${name}`, checksumsUrl: `${dir}/k6-v${K6_VERSION}-checksums.txt` };
}

export interface DownloadOptions {
  baseUrl: string;
  scratchParent: string;
  progress: Progress;
  signal?: AbortSignal;
  platform?: string;
  arch?: string;
}

/**
 * Downloads the release archive, checks it against the release's SHA-256 list, unpacks it with the
 * system `tar` (bsdtar on macOS and Windows reads zip too) and returns the binary's path.
 * Not exercised against the real release site in this repository's CI (no internet there); the test
 * serves a locally made release from a loopback server instead.
 */
export async function downloadK6(options: DownloadOptions): Promise<{ binPath: string; workDir: string }> {
  const platform = options.platform ?? process.platform;
  const asset = describeK6Asset(options.baseUrl, platform, options.arch ?? process.arch);
  const workDir = await mkdtemp(join(options.scratchParent, '.download-k6-'));
  try {
    const sums = (await fetchBytes(asset.checksumsUrl, options)).toString('utf8');
    const expected = parseChecksums(sums).get(asset.name);
    if (!expected) throw provisionError(`${asset.checksumsUrl} lists no checksum for ${asset.name}`);
    const archive = await fetchBytes(asset.url, options);
    const actual = createHash('sha256').update(archive).digest('hex');
    if (actual !== expected) {
      throw provisionError(`${asset.name} has SHA-256 ${actual}, but the release lists ${expected}`);
    }
    const archivePath = join(workDir, asset.name);
    await writeFile(archivePath, archive);
    await execa('tar', ['-xf', archivePath, '-C', workDir]);
    const binName = platform === 'win32' ? 'k6.exe' : 'k6';
    const unpacked = join(workDir, asset.name.replace(/\.(tar\.gz|zip)$/, ''));
    if (!(await readdir(unpacked)).includes(binName)) {
      throw provisionError(`${asset.name} has no ${binName} in ${unpacked}`);
    }
    return { binPath: join(unpacked, binName), workDir };
  } catch (err) {
    await rm(workDir, { recursive: true, force: true });
    throw err;
  }
}

/** `sha256  name` lines (sha256sum's format, which k6's checksums file uses). */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)\s*$/i.exec(line.trim());
    if (m?.[1] && m[2]) sums.set(m[2], m[1].toLowerCase());
  }
  return sums;
}

async function fetchBytes(url: string, options: DownloadOptions): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, options.signal ? { signal: options.signal } : {});
  } catch (err) {
    throw provisionError(`could not reach ${url}: ${describeFetchError(err)}`, err);
  }
  if (!response.ok || !response.body) throw provisionError(`${url} answered HTTP ${String(response.status)}`);
  const total = Number(response.headers.get('content-length') ?? 0);
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    received += chunk.byteLength;
    const mb = (received / 1e6).toFixed(1);
    const detail = total > 0 ? `${mb} of ${(total / 1e6).toFixed(1)} MB` : `${mb} MB`;
    options.progress.update(
      `downloading ${url.split('/').pop() ?? url}: ${detail}`,
      received,
      total || undefined,
    );
  }
  return Buffer.concat(chunks);
}

function describeFetchError(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
  return cause ?? (err instanceof Error ? err.message : String(err));
}

function provisionError(message: string, cause?: unknown): HarnessError {
  return new HarnessError(ErrorCode.ProvisionFailed, message, cause === undefined ? {} : { cause });
}
