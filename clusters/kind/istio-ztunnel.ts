// --ztunnel-impl istio-shared on kind: the run's ztunnel DaemonSet runs istio/ztunnel's binary from
// the image provisioning built of ZTUNNEL_BINARY (provision/istio-ztunnel-image.ts).
import type { KubernetesObject, V1DaemonSet } from '@kubernetes/client-node';
import { asIstioZtunnel } from '../manifests/index.ts';
import type { KindRun } from './kind-run.ts';

const isZtunnelDaemonSet = (o: KubernetesObject): o is V1DaemonSet =>
  o.kind === 'DaemonSet' && o.metadata?.namespace === 'istio-system' && o.metadata.name === 'ztunnel';

/** The objects as applied: the ztunnel DaemonSet made the binary's when the run brings one. */
export function withIstioZtunnel(
  run: Pick<KindRun, 'settings' | 'provisioned'>,
  objects: readonly KubernetesObject[],
): readonly KubernetesObject[] {
  if (run.settings.istioZtunnelBinary === undefined) return objects;
  const image = run.provisioned?.istioZtunnelImage;
  if (!image) throw new Error("istio/ztunnel's image was not built: apply before up()'s provisioning");
  return objects.map((o) => (isZtunnelDaemonSet(o) ? asIstioZtunnel(o, image) : o));
}
