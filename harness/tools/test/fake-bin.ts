import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** A PATH holding only what the provisioning code may legitimately call, plus our fakes. */
export interface FakeBin {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Each fake appends its argv here, one call a line. */
  callLog: string;
  readCalls(): Promise<string[]>;
}

const SYSTEM_TOOLS = ['sh', 'tar', 'gzip', 'chmod', 'cat'];

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
 * A `go` that answers `version`, prints `go get`'s download lines, and for `go build -o X` writes a
 * fake k6 reporting `builtVersion` at X (printing package lines on stderr as `go build -v` does).
 */
export function fakeGoScript(options: {
  goVersion: string;
  builtVersion: string;
  failBuild?: boolean;
}): string {
  const k6 = fakeK6Script(options.builtVersion).replace(/'/g, `'"'"'`);
  return `#!/bin/sh
echo "go $*" >> "$FAKE_CALL_LOG"
case "$1" in
  version) echo "go version go${options.goVersion} linux/amd64" ;;
  get) echo "go: downloading go.k6.io/k6/v2 v2.2.0" >&2; echo "go: added go.k6.io/k6/v2 v2.2.0" >&2 ;;
  build)
    ${options.failBuild ? 'echo "compile: something broke" >&2; exit 1' : ''}
    out=""; prev=""
    for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
    echo "go.k6.io/k6/v2/internal/cmd" >&2; echo "go.k6.io/k6/v2" >&2
    printf '%s' '${k6}' > "$out"; chmod +x "$out" ;;
  *) exit 2 ;;
esac
`;
}
