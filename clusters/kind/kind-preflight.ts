import { ErrorCode, HarnessError, isHarnessError } from '../../lib/index.ts';
import type { KindTools } from './kind-tools.ts';

/**
 * Refuses (exit 2) when a kind cluster of this name exists already. `kind create cluster` would fail on
 * it anyway ("node(s) already exist", kind pkg/cluster/internal/create/create.go `alreadyExists`), and
 * the harness deletes only clusters it created: the one there may be a --keep-cluster cluster being
 * looked at, or another run's in progress on this engine. What left it (Ctrl-C during `kind create`,
 * which has no signal handler and so never cleans up; a killed or cancelled run) is told, with the
 * command that removes it.
 */
export async function refuseExistingCluster(
  tools: Pick<KindTools, 'listClusters'>,
  name: string,
): Promise<void> {
  const clusters = await tools.listClusters();
  if (!clusters.includes(name)) return;
  throw new HarnessError(
    ErrorCode.BadInput,
    `a kind cluster named "${name}" exists already (left by --keep-cluster, or by a run that was interrupted or killed, or another run is using it); the harness deletes only clusters it created: remove it with \`kind delete cluster --name ${name}\`, then run again`,
  );
}

/**
 * A `kind create cluster` that failed because the ingress host port is taken (Docker's "Bind for
 * 127.0.0.1:18080 failed: port is already allocated") is bad input (exit 2) naming the port and the
 * flag; any other failure is returned as it was.
 */
export function explainCreateFailure(err: unknown, ingressHostPort: number): unknown {
  if (!isHarnessError(err, ErrorCode.ComponentFailed)) return err;
  const port = String(ingressHostPort);
  if (
    !/port is already allocated|address already in use/.test(err.message) ||
    !err.message.includes(`:${port}`)
  )
    return err;
  return new HarnessError(
    ErrorCode.BadInput,
    `127.0.0.1:${port}, where kind publishes the gateway's nodePort, is in use by another program; free it, or choose another port with --kind-ingress-port (kind create cluster said: ${err.message})`,
    { cause: err },
  );
}
