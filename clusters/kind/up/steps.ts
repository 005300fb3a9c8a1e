import { checkMachineStep } from './check-machine.ts';
import { controlPlaneStep } from './control-plane.ts';
import { createClusterStep } from './create-cluster.ts';
import type { KindUpStep } from './kind-up.ts';
import { loadImagesStep } from './load-images.ts';
import { provisionStep } from './provision.ts';

/**
 * The kind bring-up, in order, as kind's create lists its actions: provisioning (engine -> kind ->
 * node image -> images, each its own step), the machine checked against the node image, the cluster
 * created, our images loaded into its nodes, the API and watches connected with istiod rolled out.
 * Each is timed in the output and in steps.csv. The workload and the wait until it serves are the
 * run's (apply, waitForReady), timed the same way the first time (ops/wait-for-ready.ts).
 * A new mode adds a step here instead of growing the backend.
 */
export const KIND_UP_STEPS: readonly KindUpStep[] = [
  { name: 'provision', hasOwnSteps: true, run: provisionStep },
  { name: 'machine', run: checkMachineStep },
  { name: 'cluster', run: createClusterStep },
  { name: 'load-images', run: loadImagesStep },
  { name: 'control-plane', run: controlPlaneStep },
];
