import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { GoToolSpec } from '../go-tool.ts';

/** A PATH holding only what the provisioning code may legitimately call, plus our fakes. */
export interface FakeBin {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Each fake appends its argv here, one call a line. */
  callLog: string;
  readCalls(): Promise<string[]>;
}

const SYSTEM_TOOLS = ['sh', 'tar', 'gzip', 'chmod', 'cat'];

/** A scratch tools folder, removed after the test. */
export async function createToolsDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tools-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The `mod` line `go version -m` prints for a binary built from `spec`'s pinned module. */
export const modLineOf = (spec: GoToolSpec): string => `${spec.module}\tv${spec.version}\t${spec.moduleSum}`;

export async function createFakeBin(t: { after: (fn: () => Promise<void>) => void }): Promise<FakeBin> {
  const root = await mkdtemp(join(tmpdir(), 'fake-bin-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, 'bin');
  await mkdir(dir);
  for (const tool of SYSTEM_TOOLS) {
    const real = (await execa('sh', ['-c', `command -v ${tool}`])).stdout.trim();
    await symlink(real, join(dir, tool));
  }
  const callLog = join(root, 'calls.log');
  await writeFile(callLog, '');
  return {
    dir,
    callLog,
    env: { PATH: dir, HOME: root, FAKE_CALL_LOG: callLog },
    readCalls: async () => (await readFile(callLog, 'utf8')).split('\n').filter((l) => l !== ''),
  };
}

/** A shell script `k6` that answers `k6 version` like the real one. */
export function fakeK6Script(version: string): string {
  return `#!/bin/sh
echo "k6 $*" >> "$FAKE_CALL_LOG"
if [ "$1" = version ]; then echo "k6 v${version} (go1.26.8, linux/amd64)"; exit 0; fi
exit 1
`;
}

export async function installFake(bin: FakeBin, name: string, script: string): Promise<string> {
  const path = join(bin.dir, name);
  await writeFile(path, script);
  await chmod(path, 0o755);
  return path;
}

/**
 * A `go` that answers `version`, and for `go install PATH@vX` writes an executable named after
 * PATH's last element into $GOBIN; `go version -m BIN` prints the `mod` line given (the module hash
 * check reads it).
 */
export function fakeGoScript(options: { modLine: string; failInstall?: boolean }): string {
  return `#!/bin/sh
echo "go $*" >> "$FAKE_CALL_LOG"
case "$1" in
  version)
    if [ "$2" = -m ]; then echo "$3: go1.26.8"; printf '\\tmod\\t%s\\n' "${options.modLine}"; exit 0; fi
    echo "go version go1.26.8 linux/amd64" ;;
  install)
    ${options.failInstall ? 'echo "go: module not found" >&2; exit 1' : ''}
    target="\${2%@*}"; name="\${target##*/}"
    printf '#!/bin/sh\\necho built\\n' > "$GOBIN/$name"; chmod +x "$GOBIN/$name" ;;
  *) exit 2 ;;
esac
`;
}
