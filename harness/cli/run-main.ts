import { CommanderError } from 'commander';
import { ErrorCode, HarnessError, isHarnessError } from '../../lib/index.ts';
import { installCrashGuard } from './crash-guard.ts';

/**
 * Runs a CLI's main with the project's exit contract: 0 pass, 1 failed, 2 bad input (including a
 * missing tool). SIGINT/SIGTERM abort `signal` so the main can stop its children and keep what it
 * has; a second signal exits at once. An uncaught error in an in-process component aborts `signal`
 * the same way (crash-guard.ts) and the process exits 1.
 */
export function runMain(main: (signal: AbortSignal) => Promise<number>): void {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.stderr.write(`\n${name} again: exiting now\n`);
      process.exit(130);
    }
    process.stderr.write(
      `\n${name}: stopping (children get SIGTERM, then SIGKILL); ${name} again to exit now\n`,
    );
    controller.abort(new HarnessError(ErrorCode.Aborted, `interrupted by ${name}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const uninstallCrashGuard = installCrashGuard(controller);
  const crashed = (): boolean => isHarnessError(controller.signal.reason, ErrorCode.ComponentFailed);
  main(controller.signal)
    .then(
      (code) => {
        process.exitCode = crashed() ? 1 : code;
      },
      (err: unknown) => {
        process.exitCode = reportError(err);
      },
    )
    .finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      uninstallCrashGuard();
    });
}

/** Prints an error for a person and returns the exit code it maps to. */
export function reportError(err: unknown): number {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (or the help text).
    return err.exitCode === 0 ? 0 : 2;
  }
  if (isHarnessError(err)) {
    process.stderr.write(`error: ${err.message}\n`);
    if (err.cause instanceof Error && process.env['DEBUG'])
      process.stderr.write(`${String(err.cause.stack)}\n`);
    return err.exitCode;
  }
  process.stderr.write(`internal error: ${err instanceof Error ? String(err.stack) : String(err)}\n`);
  return 1;
}
