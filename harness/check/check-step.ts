// One step of `npm run check`: a command whose output is kept until it ends (steps run side by side
// would interleave), then printed under its name and time; or streamed, when it runs alone.
import { execa } from 'execa';

export interface StepResult {
  name: string;
  exitCode: number;
  seconds: number;
  /** The step's stdout and stderr, interleaved as written (empty when streamed). */
  output: string;
}

export async function runStep(
  name: string,
  command: readonly string[],
  options: { cwd: string; stream?: boolean; signal?: AbortSignal; env?: Record<string, string> },
): Promise<StepResult> {
  const [file = '', ...args] = command;
  const started = performance.now();
  const r = await execa(file, args, {
    cwd: options.cwd,
    reject: false,
    all: true,
    stdin: 'ignore',
    ...(options.stream ? { stdout: 'inherit', stderr: 'inherit' } : {}),
    ...(options.signal ? { cancelSignal: options.signal, forceKillAfterDelay: 5000 } : {}),
    // Colour off in captured output: it is printed later, maybe into a CI log.
    env: { ...options.env, ...(options.stream ? {} : { FORCE_COLOR: '0', NO_COLOR: '1' }) },
  });
  return {
    name,
    exitCode: r.exitCode ?? 1,
    seconds: (performance.now() - started) / 1000,
    output: options.stream ? '' : (r.all ?? ''),
  };
}
