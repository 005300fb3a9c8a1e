// The kind backend's generator command with --load-from cluster (its generatorCommand): started by
// the harness where it would start fortio, it runs fortio as a pod (fortio-pod-run.ts) and exits
// with fortio's exit code, so the harness reads the run the same way.
// Usage: node fortio-pod-main.ts '<FortioPodConfig JSON>' <fortio> load ... <url>
import { runFortioPod } from './fortio-pod-run.ts';
import type { FortioPodConfig } from './fortio-pod-run.ts';

/** How often it looks for its parent. */
const PARENT_CHECK_MS = 1000;

// A harness killed outright (SIGKILL: no signal reaches this child) leaves it an orphan: it stops
// as a SIGTERM would stop it (the pod deleted, fortio's files still written), not at the load's end.
// Its output pipes close with the harness: writes to them fail (EPIPE), which must not end it before
// the pod is deleted (a write's error is the only thing to ignore here; the counter is the pipe's).
let lostWrites = 0;
for (const stream of [process.stdout, process.stderr])
  stream.on('error', () => {
    lostWrites += 1;
  });
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid !== parent) {
    process.stderr.write(
      `fortio-pod: the harness (pid ${String(parent)}) is gone: stopping (${String(lostWrites)} writes lost)\n`,
    );
    clearInterval(orphaned);
    process.kill(process.pid, 'SIGTERM');
  }
}, PARENT_CHECK_MS);
orphaned.unref();

const [configJson = '{}', ...argv] = process.argv.slice(2);
try {
  process.exitCode = await runFortioPod(JSON.parse(configJson) as FortioPodConfig, argv);
} catch (err) {
  process.stderr.write(`fortio-pod: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}
