import { join } from 'node:path';
import { build, stop } from 'esbuild';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { K6_SCRIPTS_DIR } from '../paths.ts';

/**
 * Bundles a TypeScript k6 script into one ES module k6 can run: `--format=esm --external:k6
 * --external:k6/*` (k6's modules are provided by k6 itself). Type checking is tsc's job
 * (`npm run typecheck`); esbuild only strips types and joins files.
 */
export async function bundleK6Script(options: { script: string; outFile: string }): Promise<string> {
  const entry = join(K6_SCRIPTS_DIR, options.script);
  try {
    await build({
      entryPoints: [entry],
      outfile: options.outFile,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      external: ['k6', 'k6/*'],
      logLevel: 'silent',
    });
  } catch (err) {
    throw new HarnessError(ErrorCode.LoadFailed, `could not bundle ${entry} for k6`, { cause: err });
  } finally {
    // esbuild keeps its service process until stopped; a run must leave no process behind (the next
    // build starts a new one). Builds in one process are sequential here.
    await stop();
  }
  return options.outFile;
}
