// A TypeScript program run as a real process on this Node (ztunnel, istiod), its stdout lines
// collected for the test to wait on.
import { execa } from 'execa';

export interface NodeProcess {
  child: Promise<{ exitCode?: number | undefined; signal?: string | undefined; stderr?: unknown }> & {
    pid?: number | undefined;
    kill(signal?: NodeJS.Signals): boolean;
  };
  lines: string[];
  /** Resolves with the test-clock time (performance.now()) at which a stdout line matching `re` arrived. */
  waitForLine(re: RegExp): Promise<number>;
  /** True once the process has exited. */
  exited(): boolean;
}

export function spawnNodeProcess(script: string, env: Record<string, string>): NodeProcess {
  const child = execa(process.execPath, [script], {
    env,
    stdin: 'ignore',
    reject: false,
    // Not execa's SIGKILL-after-SIGTERM: tests send SIGTERM to watch the whole shutdown.
    forceKillAfterDelay: false,
  });
  let done = false;
  void child.then(() => (done = true));
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
    child,
    lines,
    exited: () => done,
    waitForLine: (re) => {
      const seen = lines.find((l) => re.test(l));
      if (seen) return Promise.resolve(performance.now());
      return new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}
