import { checkCgroupVersion } from '../docker-info.ts';
import { refuseExistingCluster } from '../kind-preflight.ts';
import type { KindUp } from './kind-up.ts';

/**
 * The machine step, after provisioning: Docker and kind answer, the engine runs a cgroup version the
 * node image's kubelet takes, and no cluster of this name exists (ToolMissing or BadInput, exit 2);
 * records the versions and the image store, and the engine's platform for loading images.
 */
export async function checkMachineStep(up: KindUp): Promise<void> {
  const { run } = up;
  const { tools } = run;
  const versions = await tools.checkInstalled();
  const docker = await tools.dockerInfo();
  checkCgroupVersion(docker, run.provisioned?.kubernetesVersion ?? '');
  run.facts['kind_version'] = versions.kindVersion;
  run.facts['docker_server_version'] = `${versions.dockerServerVersion} (image store: ${docker.imageStore})`;
  await refuseExistingCluster(tools, run.settings.name);
  up.platform = docker.platform;
}
