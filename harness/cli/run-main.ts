import { CommanderError } from 'commander';
import { ErrorCode, EXIT, HarnessError, isHarnessError } from '../../lib/index.ts';
import { installCrashGuard, STOP_GRACE_MS } from './crash-guard.ts';

/** How long a process may stay up after its main has settled (only a leak keeps it up). */
export const EXIT_GRACE_MS = 5000;

export interface RunMainOptions {
  /** After the first SIGINT/SIGTERM, how long main has to stop before the process exits anyway. */
  stopGraceMs?: number;
  /** After main settles, how long before the process exits anyway if something still holds it. */
  exitGraceMs?: number;
  write?: (text: string) => void;
}

/**
 * Runs a CLI's main with the project's exit contract (lib/errors.ts `EXIT`): 0 pass, 1 the result
 * is a failure (verdict, shape, regression), 2 bad input (including a missing tool), 3 the command
 * could not run (a component failed, a tool could not be built, an internal error), 130 interrupted.
 * SIGINT/SIGTERM abort `signal` so the main can stop its children and keep what it
 * has; a second signal exits at once, and so does the process when main has not stopped within
 * `stopGraceMs` (a main awaiting something that ignores the signal, such as Node's recursive mkdir
 * spinning under /proc, would otherwise keep it up for ever). An uncaught error in an in-process
 * component aborts `signal` the same way (crash-guard.ts) and the process exits 3. Once main has
 * settled, the process ends even if a leaked handle would keep it up, naming what held it.
 */
export function runMain(main: (signal: AbortSignal) => Promise<number>, options: RunMainOptions = {}): void {
  const write = options.write ?? ((t: string) => process.stderr.write(t));
  const stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  const controller = new AbortController();
  const exitNow = (code: number): never => {
    process.off('exit', onEarlyExit);
    process.exit(code);
  };
  // Node exits 0 when nothing is left to wait for, even with main pending on a promise nobody
  // will settle: that would read as a pass.
  const onEarlyExit = (): void => {
    write(
      'internal error: the command ended before its main finished (it awaits something nothing will settle)\n',
    );
    process.exitCode = EXIT.couldNotRun;
  };
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      write(`\n${name} again: exiting now\n`);
      exitNow(EXIT.interrupted);
    }
    write(`\n${name}: stopping (children get SIGTERM, then SIGKILL); ${name} again to exit now\n`);
    controller.abort(new HarnessError(ErrorCode.Aborted, `interrupted by ${name}`));
    // Unref'd: a main that does stop in time lets the process end without waiting for this.
    setTimeout(() => {
      write(`did not stop within ${String(stopGraceMs / 1000)} s of ${name}: ${heldBy()}; exiting\n`);
      exitNow(EXIT.interrupted);
    }, stopGraceMs).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const uninstallCrashGuard = installCrashGuard(controller);
  const crashed = (): boolean => isHarnessError(controller.signal.reason, ErrorCode.ComponentFailed);
  process.once('exit', onEarlyExit);
  main(controller.signal)
    .then(
      (code) => {
        process.exitCode = crashed() ? EXIT.couldNotRun : code;
      },
      (err: unknown) => {
        process.exitCode = reportError(err);
      },
    )
    .finally(() => {
      process.off('exit', onEarlyExit);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      uninstallCrashGuard();
      exitWhenHeld(options.exitGraceMs ?? EXIT_GRACE_MS, write);
    });
}

/** What keeps the event loop alive, as Node names it (timers, sockets, file-system requests). */
function heldBy(): string {
  const held = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
  return held.length > 0 ? `held by ${held.join(', ')}` : 'nothing pending';
}

/** Exits with the code already set if the process is still up `graceMs` from now. */
function exitWhenHeld(graceMs: number, write: (text: string) => void): void {
  setTimeout(() => {
    write(
      `the command finished but the process was still ${heldBy()} after ${String(graceMs / 1000)} s: exiting\n`,
    );
    process.exit();
  }, graceMs).unref();
}

/**
 * The exit code an error from a main maps to: 2 for bad input (commander's too), 130 for an
 * interruption, 3 otherwise (the command could not run; 1 is only ever a failed result).
 */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.pass : EXIT.badInput;
  if (isHarnessError(err)) return err.exitCode;
  return EXIT.couldNotRun;
}

/** Prints an error for a person and returns the exit code it maps to. */
export function reportError(err: unknown): number {
  // Commander has already printed its message (or the help text).
  if (err instanceof CommanderError) return exitCodeOf(err);
  if (isHarnessError(err)) {
    process.stderr.write(`error: ${err.message}\n`);
    if (err.cause instanceof Error && process.env['DEBUG'])
      process.stderr.write(`${String(err.cause.stack)}\n`);
    return exitCodeOf(err);
  }
  process.stderr.write(`internal error: ${err instanceof Error ? String(err.stack) : String(err)}\n`);
  return 1;
}
