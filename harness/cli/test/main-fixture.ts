// A CLI main for run-main.test.ts, as a real process: `stuck` awaits Node's recursive mkdir under
// /proc (the spin of issue 31: it never settles and ignores the signal), `honours` stops on the
// signal, `leaks` returns while an interval still holds the event loop, `forgotten` awaits a
// promise nobody settles.
import { mkdir } from 'node:fs/promises';
import { runMain } from '../run-main.ts';

const mode = process.argv[2];

runMain(
  async (signal) => {
    process.stderr.write('main started\n');
    if (mode === 'stuck') {
      await mkdir('/proc/nonexistent/results/run/pods', { recursive: true });
      return 0;
    }
    if (mode === 'honours') {
      const waiting = setInterval(() => undefined, 1000);
      await new Promise((resolve) => {
        signal.addEventListener('abort', resolve, { once: true });
      });
      clearInterval(waiting);
      return 130;
    }
    if (mode === 'forgotten') {
      await new Promise(() => undefined); // nothing will ever resolve it, and nothing holds the loop
      return 0;
    }
    setInterval(() => undefined, 1000);
    return 3;
  },
  { stopGraceMs: 300, exitGraceMs: 300 },
);
