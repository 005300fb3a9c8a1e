import { createKindTools } from '../../clusters/kind/index.ts';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';

/**
 * `--backend kind`, before any side effect: Docker and kind must be there (ToolMissing, exit 2, says
 * what to install). Then it stops: the kind backend (clusters/kind) creates the cluster, loads the
 * images, applies, restarts and watches, but the in-cluster half of the mesh is not built - istiod
 * reading pods and services from the Kubernetes API, and ztunnel serving its node's pods on the node
 * address without a CNI node agent - so an experiment would only time out waiting for Ready.
 */
export async function refuseKindExperiment(): Promise<never> {
  await createKindTools({ buildContext: PROJECT_ROOT }).checkInstalled();
  throw new HarnessError(
    ErrorCode.BadInput,
    'Experiments on --backend kind are not available yet: the kind backend can create the cluster and drive it, but the in-cluster control plane (istiod on the Kubernetes API) and ztunnel node-address mode are not built (README, "kind backend"); use --backend local',
  );
}
