// The local cluster's bring-up as a list of named steps, run in order, each timed (as kind's
// pkg/cluster/internal/create/create.go runs its actions): a new mode adds a step here.
import { runTimedStep } from '../../steps/timed-step.ts';
import type { StepTime } from '../../steps/timed-step.ts';
import { controlPlaneStep } from './control-plane.ts';
import { controllersStep } from './controllers.ts';
import { cpuGroupsStep } from './cpu-groups.ts';
import { kubeletsStep } from './kubelets.ts';
import type { LocalCluster } from './local-cluster.ts';
import { networkWorldStep } from './network-world.ts';
import { runFolderStep } from './run-folder.ts';
import { tokensStep } from './tokens.ts';
import { ztunnelImagesStep } from './ztunnel-images.ts';

export interface LocalUpStep {
  name: string;
  run: (cluster: LocalCluster) => Promise<void>;
}

export const LOCAL_UP_STEPS: readonly LocalUpStep[] = [
  { name: 'run folder', run: runFolderStep },
  { name: 'cpu groups', run: cpuGroupsStep },
  { name: 'service-account tokens', run: tokensStep },
  { name: 'network world', run: networkWorldStep },
  { name: 'control plane', run: controlPlaneStep },
  { name: 'ztunnel images', run: ztunnelImagesStep },
  { name: 'node agents and kubelets', run: kubeletsStep },
  { name: 'controllers', run: controllersStep },
];

/**
 * Runs the steps in order, each timed by runTimedStep (the step runner's core) on the run clock; each
 * one's time is logged and returned. Not the kind runner itself: these steps run no commands, so they
 * have no log files or steps.csv, and a failed one's error goes on as it is, unlogged.
 */
export async function runLocalUpSteps(
  cluster: LocalCluster,
  steps: readonly LocalUpStep[] = LOCAL_UP_STEPS,
): Promise<StepTime[]> {
  const times: StepTime[] = [];
  for (const step of steps) {
    await runTimedStep({
      name: step.name,
      now: () => cluster.clock.now(),
      body: () => step.run(cluster),
      onEnd: ({ name, ms, ok }) => {
        if (!ok) return;
        times.push({ name, ms });
        cluster.log.debug(`up: ${name} in ${ms.toFixed(0)} ms`);
      },
    });
  }
  return times;
}
