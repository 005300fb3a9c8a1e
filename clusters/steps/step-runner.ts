import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ErrorCode, HarnessError, makeDirectory } from '../../lib/index.ts';
import { runTimedStep } from './timed-step.ts';

/**
 * One named step of a bring-up that runs commands (kind's provisioning: engine, kind, node image,
 * images; the cluster, its images and control plane; the existing backend's; the harness's tools):
 * its commands' output goes to its own log file, its duration is told when it ends, and a command
 * that fails fails the step with ProvisionFailed (exit 3) naming the step and the log, as kind's
 * create prints each action as it runs (kind pkg/cluster/internal/create/create.go:
 * `ctx.Status.Start(...)` / `End(ok)`). Its timing is runTimedStep's, the local cluster's too.
 */
export interface LoggedStep {
  readonly name: string;
  /** The step's log file: every command's stdout and stderr, one header line per command. */
  readonly logPath: string;
  /** Runs a command, its output appended to the log; a non-zero exit fails the step (exit 3). */
  run(file: string, args: readonly string[], options?: StepRunOptions): Promise<string>;
  /** A line into the log and (when `tell`) to the user. */
  note(line: string, tell?: boolean): void;
  readonly signal: AbortSignal | undefined;
}

export interface StepRunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string | Buffer;
  /** Read the command's stdout into the result (default: it only goes to the log). */
  capture?: boolean;
  /** Return the output of a failed command instead of failing the step. */
  allowFailure?: boolean;
  timeoutMs?: number;
}

export interface StepTiming {
  name: string;
  seconds: number;
  ok: boolean;
  logPath: string;
}

export interface StepRunnerOptions {
  /** Where each step's `<name>.log` goes. */
  logDir: string;
  /** Progress lines for the user ("engine: 12.3 s"). */
  write: (text: string) => void;
  signal?: AbortSignal;
  /** Told each step's time as it ends (the run folder's steps.csv, the output). */
  onTiming?: (timing: StepTiming) => void;
  now?: () => number;
}

export interface StepHow {
  /**
   * The body's error is rethrown as it is, not named after the step and its log (a wait whose
   * failure the run reports in its own words: waitForReady's timeout).
   */
  keepError?: boolean;
}

export interface StepRunner {
  step<T>(name: string, body: (step: LoggedStep) => Promise<T>, how?: StepHow): Promise<T>;
  timings(): readonly StepTiming[];
}

export function createStepRunner(options: StepRunnerOptions): StepRunner {
  const now = options.now ?? (() => performance.now());
  const timings: StepTiming[] = [];
  return {
    timings: () => timings,
    async step(name, body, how = {}) {
      await makeDirectory(options.logDir);
      const logPath = join(options.logDir, `${name}.log`);
      const log = {
        write: (text: string) => {
          appendFileSync(logPath, text);
        },
      };
      options.write(`${name}: started (log: ${logPath})\n`);
      const step = createStep(name, logPath, log, options);
      return runTimedStep({
        name,
        now,
        body: async () => {
          try {
            return await body(step);
          } catch (err) {
            log.write(`FAILED: ${(err as Error).message}\n`);
            throw how.keepError ? err : asStepFailure(name, logPath, err);
          }
        },
        onEnd: ({ ms, ok }) => {
          const timing = { name, seconds: ms / 1000, ok, logPath };
          timings.push(timing);
          // steps.csv beside the logs: one row a step, in the order they ended.
          const csv = join(options.logDir, 'steps.csv');
          if (!existsSync(csv)) appendFileSync(csv, 'step,seconds,ok,log\n');
          appendFileSync(csv, `${name},${timing.seconds.toFixed(1)},${String(ok)},${logPath}\n`);
          options.onTiming?.(timing);
          options.write(`${name}: ${ok ? 'done' : 'FAILED'} in ${timing.seconds.toFixed(1)} s\n`);
        },
      });
    },
  };
}

function createStep(
  name: string,
  logPath: string,
  log: { write: (text: string) => void },
  options: StepRunnerOptions,
): LoggedStep {
  return {
    name,
    logPath,
    signal: options.signal,
    note(line, tell = false) {
      log.write(`${line}\n`);
      if (tell) options.write(`${name}: ${line}\n`);
    },
    async run(file, args, how = {}) {
      log.write(`$ ${file} ${args.join(' ')}\n`);
      const child = execa(file, args, {
        ...(how.cwd ? { cwd: how.cwd } : {}),
        env: how.env ?? {},
        extendEnv: true,
        reject: false,
        ...(how.input === undefined ? { stdin: 'ignore' as const } : { input: how.input }),
        stdout: how.capture ? 'pipe' : { file: logPath, append: true },
        stderr: { file: logPath, append: true },
        ...(options.signal ? { cancelSignal: options.signal } : {}),
        forceKillAfterDelay: 5000,
        ...(how.timeoutMs === undefined ? {} : { timeout: how.timeoutMs }),
        maxBuffer: 1024 * 1024 * 1024,
      });
      const result = await child;
      const stdout = how.capture && typeof result.stdout === 'string' ? result.stdout : '';
      if (how.capture && stdout) log.write(`${stdout.slice(0, 4000)}\n`);
      if (result.isCanceled)
        throw new HarnessError(ErrorCode.Aborted, `${name}: ${file} ${args[0] ?? ''} was cancelled`);
      if (result.exitCode !== 0 && !how.allowFailure)
        throw new HarnessError(
          ErrorCode.ProvisionFailed,
          `${file} ${args.slice(0, 3).join(' ')} exited ${String(result.exitCode ?? result.signal)}`,
        );
      return stdout;
    },
  };
}

/**
 * A failed step keeps its error's code (a missing tool stays exit 2, an interruption 130, a component
 * that failed 3) and names the step and its log; anything else is ProvisionFailed (exit 3).
 */
function asStepFailure(name: string, logPath: string, err: unknown): HarnessError {
  const code = err instanceof HarnessError ? err.code : ErrorCode.ProvisionFailed;
  const message = err instanceof Error ? err.message : String(err);
  return new HarnessError(code, `${message} (the ${name} step; its log: ${logPath})`, { cause: err });
}
