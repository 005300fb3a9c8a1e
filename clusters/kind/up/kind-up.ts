import type { KindRun } from '../kind-run.ts';
import type { StepRunner } from '../../steps/step-runner.ts';

/** What each bring-up step takes: the run, the runner that times the steps, up()'s signal. */
export interface KindUp {
  readonly run: KindRun;
  readonly runner: StepRunner;
  readonly signal: AbortSignal | undefined;
  /** The engine's platform (linux/amd64), found by the machine step for loading images. */
  platform: string;
}

/**
 * One action of the bring-up, as kind's create runs its actions (pkg/cluster/internal/create/create.go):
 * a name (its log `<name>.log` and row in steps.csv) and what it does.
 */
export interface KindUpStep {
  readonly name: string;
  /**
   * Its parts are steps of their own, each timed by the runner (provisioning: engine, kind, node
   * image, images): the step itself is not timed again.
   */
  readonly hasOwnSteps?: boolean;
  run(up: KindUp): Promise<void>;
}
