import { basename, join } from 'node:path';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import type { KindRun } from '../kind-run.ts';
import type { FortioPodConfig } from './fortio-pod-run.ts';

/** The runner the harness starts in fortio's place (--load-from cluster). */
export const FORTIO_POD_MAIN = join(import.meta.dirname, 'fortio-pod-main.ts');

/**
 * The generator's command line with --load-from cluster: this backend's pod runner, given where the
 * cluster is and fortio's own command line (the runner makes it the pod's). Each call names a pod of
 * its own (one fortio per target runs at once).
 */
export function createFortioPodCommand(
  run: KindRun,
  /** An existing cluster's: its context, the run's namespace and images, the gateway, the Host. */
  where: Partial<FortioPodConfig> = {},
): (argv: readonly string[]) => string[] {
  let calls = 0;
  return (argv) => {
    const [executable = ''] = argv;
    if (!basename(executable).startsWith('fortio'))
      throw new HarnessError(
        ErrorCode.BadInput,
        `--load-from cluster runs fortio in a pod, got ${basename(executable)}; use --generator fortio or --load-from host`,
      );
    calls += 1;
    const config: FortioPodConfig = {
      kubeconfig: run.settings.kubeconfigPath,
      dockerEnv: { ...run.settings.toolsEnv, ...run.provisioned?.env },
      ingress: `127.0.0.1:${String(run.settings.ingressHostPort)}`,
      podName: `fortio-${run.settings.clock.now().toFixed(0)}-${String(calls)}`,
      ...where,
    };
    return [process.execPath, FORTIO_POD_MAIN, JSON.stringify(config), ...argv];
  };
}
