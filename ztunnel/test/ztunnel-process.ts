import { execa } from 'execa';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/paths.ts';

export interface ZtunnelProcess {
  name: string;
  child: Promise<{ exitCode?: number | undefined; signal?: string | undefined }> & {
    pid?: number | undefined;
    kill(signal?: NodeJS.Signals): boolean;
  };
  lines: string[];
  /** Resolves with the test-clock time (performance.now()) at which a stdout line matching `re` arrived. */
  waitForLine(re: RegExp): Promise<number>;
}

/** A real ztunnel process (ztunnel/main.ts on this Node), its stdout lines collected. */
export function spawnZtunnel(name: string, env: Record<string, string>): ZtunnelProcess {
  const child = execa(process.execPath, [join(PROJECT_ROOT, 'ztunnel', 'main.ts')], {
    env: { ...env, INSTANCE: name, LOG_LEVEL: 'info' },
    stdin: 'ignore',
    reject: false,
    // Not execa's SIGKILL-after-SIGTERM: the test sends SIGTERM to watch the whole drain.
    forceKillAfterDelay: false,
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (t: number) => void }[] = [];
  child.stdout.setEncoding('utf8');
  let partial = '';
  child.stdout.on('data', (chunk: string) => {
    const now = performance.now();
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(now);
        }
      }
    }
  });
  return {
    name,
    child,
    lines,
    waitForLine: (re) => {
      const seen = lines.find((l) => re.test(l));
      if (seen) return Promise.resolve(performance.now());
      return new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}
