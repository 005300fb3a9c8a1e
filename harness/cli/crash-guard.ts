// A crash is a result, never a loss. On the local backend the control plane, the CA, the discovery
// server, the node agents, the kubelets and the API state run inside the harness process: an
// exception nobody caught in any of them would end the process and, with it, the run's folder
// half-written. Instead the run is aborted like a Ctrl-C (children stopped, folder kept, verdict
// `aborted`), with the component and the error as the reason. If the stop itself hangs, the
// process exits after STOP_GRACE_MS (container-process.ts's exit hook SIGKILLs our children).
import { relative, sep } from 'node:path';
import { componentAt, ErrorCode, EXIT, HarnessError } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';

/** How long a run has to stop after a crash or a signal before the process exits anyway. */
export const STOP_GRACE_MS = 60_000;

/** Where no component named itself (lib/components.ts): the floor the code is on. */
const FLOORS: [prefix: string, name: string][] = [
  ['clusters/', 'cluster backend'],
  ['mesh/', 'mesh component'],
  ['harness/', 'harness'],
  ['lib/', 'harness'],
];

/** The component an error's stack points into: its innermost frame in one of our folders. */
export function componentOf(err: unknown): string {
  const stack = err instanceof Error ? (err.stack ?? '') : '';
  for (const line of stack.split('\n').slice(1)) {
    const file = /\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?\s*$/.exec(line)?.[1]?.replace(/^file:\/\//, '');
    if (!file) continue;
    const path = relative(PROJECT_ROOT, file).split(sep).join('/');
    if (path.startsWith('..') || path.startsWith('node_modules/') || /\.test\.ts$|\/test\//.test(path))
      continue;
    const found = componentAt(file) ?? FLOORS.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (found) return found;
  }
  return 'harness process';
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * Turns uncaught exceptions and unhandled rejections into an abort of `controller`, reason a
 * ComponentFailed error naming the component. Returns the uninstall function.
 */
export function installCrashGuard(
  controller: AbortController,
  write: (text: string) => void = (t) => process.stderr.write(t),
  source: Pick<NodeJS.EventEmitter, 'on' | 'off'> = process,
): () => void {
  const onCrash = (err: unknown, origin: string): void => {
    const component = componentOf(err);
    write(`\n${origin} in the ${component}: ${err instanceof Error ? String(err.stack) : String(err)}\n`);
    if (controller.signal.aborted) return; // already stopping: the first cause stands
    write('stopping the run (children get SIGTERM, then SIGKILL); its folder is kept, marked aborted\n');
    controller.abort(
      new HarnessError(ErrorCode.ComponentFailed, `uncaught error in the ${component}: ${describe(err)}`, {
        cause: err,
      }),
    );
    setTimeout(() => {
      write(`the run did not stop within ${String(STOP_GRACE_MS / 1000)} s of the crash: exiting\n`);
      process.exit(EXIT.couldNotRun);
    }, STOP_GRACE_MS).unref();
  };
  const onException = (err: unknown): void => {
    onCrash(err, 'uncaught exception');
  };
  const onRejection = (err: unknown): void => {
    onCrash(err, 'unhandled rejection');
  };
  source.on('uncaughtException', onException);
  source.on('unhandledRejection', onRejection);
  return () => {
    source.off('uncaughtException', onException);
    source.off('unhandledRejection', onRejection);
  };
}
