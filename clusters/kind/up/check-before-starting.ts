import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { checkCgroupVersion } from '../docker-info.ts';
import { checkIngressPortFree } from '../ingress-port.ts';
import { refuseExistingCluster } from '../kind-preflight.ts';
import type { KindRun } from '../kind-run.ts';
import { PROVISION_NONE } from './provision.ts';

/** `kindest/node:v1.37.0@sha256:...` -> v1.37.0 ('' when the reference has no version tag). */
const kubernetesVersionOf = (ref: string): string => /:(v\d+\.\d+\.\d+)/.exec(ref)?.[1] ?? '';

/**
 * What can be refused before anything starts (preflight, and up() before its steps): the ingress
 * port taken; where an engine and kind answer already (ours may not have started yet: then the
 * machine step asks again after provisioning), a leftover cluster of this name, or cgroup v1 under a
 * given node image whose kubelet refuses it.
 */
export async function checkBeforeStarting(run: KindRun): Promise<void> {
  const { settings, tools } = run;
  if (!PROVISION_NONE) await checkIngressPortFree(settings.ingressHostPort);
  const answers = await tools.checkInstalled().then(
    () => true,
    (err: unknown) => {
      // Ours starts in up() when none answers; with ZTUNNEL_HARNESS_KIND_PROVISION=none it must answer.
      if (isHarnessError(err, ErrorCode.ToolMissing) && !PROVISION_NONE) return false;
      throw err;
    },
  );
  if (!answers) return;
  const choice = settings.nodeImage;
  if (choice !== 'auto') checkCgroupVersion(await tools.dockerInfo(), kubernetesVersionOf(choice));
  await refuseExistingCluster(tools, settings.name);
}
