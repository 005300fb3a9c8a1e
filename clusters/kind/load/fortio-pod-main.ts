// The kind backend's generator command with --load-from cluster (its generatorCommand): started by
// the harness where it would start fortio, it runs fortio as a pod (fortio-pod-run.ts) and exits
// with fortio's exit code, so the harness reads the run the same way.
// Usage: node fortio-pod-main.ts '<FortioPodConfig JSON>' <fortio> load ... <url>
import { runFortioPod } from './fortio-pod-run.ts';
import type { FortioPodConfig } from './fortio-pod-run.ts';

const [configJson = '{}', ...argv] = process.argv.slice(2);
try {
  process.exitCode = await runFortioPod(JSON.parse(configJson) as FortioPodConfig, argv);
} catch (err) {
  process.stderr.write(`fortio-pod: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}
