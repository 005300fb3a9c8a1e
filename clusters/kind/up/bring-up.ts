import { teardown } from '../down/teardown.ts';
import { sayKind } from '../kind-run.ts';
import type { KindRun } from '../kind-run.ts';
import { createStepRunner } from '../../steps/step-runner.ts';
import type { StepRunner } from '../../steps/step-runner.ts';
import { checkBeforeStarting } from './check-before-starting.ts';
import type { KindUp, KindUpStep } from './kind-up.ts';
import { KIND_UP_STEPS } from './steps.ts';

/** The runner that times the run's steps: logs and steps.csv in stepLogDir, each step told. */
export function createKindStepRunner(run: KindRun): StepRunner {
  const { stepLogDir, onStep } = run.settings;
  return createStepRunner({
    logDir: stepLogDir,
    write: (text) => {
      sayKind(run, text);
    },
    signal: run.cancelTools.signal,
    ...(onStep ? { onTiming: onStep } : {}),
  });
}

/**
 * up(): what can be refused before anything starts, then each step of `steps` in order, each timed;
 * up()'s signal cancels the tools' long commands. A failure once the cluster is ours tears it down
 * (its evidence kept first, unless interrupted); before that, a daemon this run started is stopped.
 */
export async function bringUp(
  run: KindRun,
  options: { signal?: AbortSignal | undefined; runner: StepRunner; steps?: readonly KindUpStep[] },
): Promise<void> {
  const { signal } = options;
  signal?.throwIfAborted();
  run.upSignal = signal;
  await checkBeforeStarting(run);
  const cancel = (): void => {
    run.cancelTools.abort(signal?.reason);
  };
  signal?.addEventListener('abort', cancel, { once: true });
  const up: KindUp = { run, runner: options.runner, signal, platform: '' };
  try {
    for (const step of options.steps ?? KIND_UP_STEPS) {
      signal?.throwIfAborted();
      await (step.hasOwnSteps ? step.run(up) : up.runner.step(step.name, () => step.run(up)));
    }
  } catch (err) {
    if (run.created) await teardown(run, err);
    else await run.provisioned?.release();
    throw err;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
