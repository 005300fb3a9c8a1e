import { nameComponent } from '../../lib/index.ts';
import { HBONE_PORT } from '../../mesh/workload.ts';
import type { PodRecord } from './cluster-state.ts';
import type { KubeletContext } from './kubelet-context.ts';
import { isDestroyed } from './kubelet-context.ts';
import { prepareVanish } from './vanished-address.ts';
import type { PendingVanish } from './vanished-address.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'kubelet', 'file');

/** The pod's address-holder helper (vanished-address.ts), for the ports the mesh dials. */
export function prepareAddressVanish(ctx: KubeletContext, pod: PodRecord): Promise<PendingVanish | Error> {
  if (pod.owner.kind !== 'Deployment') return Promise.resolve(new Error('not a workload pod'));
  const ports = [
    ...pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort)),
    ...(pod.isMeshed ? [HBONE_PORT] : []),
  ];
  return prepareVanish(pod.podIp, ports).then(
    (pending) => {
      ctx.holders.add(pending);
      return pending;
    },
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
}

/** The pod's address answers nothing from now on, or refuses where no helper could hold it. */
export async function vanishAddress(
  ctx: KubeletContext,
  pod: PodRecord,
  pending: Promise<PendingVanish | Error>,
): Promise<void> {
  const ready = await pending;
  if (ready instanceof Error) {
    if (pod.owner.kind === 'Deployment')
      ctx.emit('sandbox-removed', pod, `${pod.podIp} refuses instead (no address holder: ${ready.message})`);
    return;
  }
  if (isDestroyed(ctx)) {
    ready.release();
    return;
  }
  try {
    await ready.vanish();
    ctx.emit('sandbox-removed', pod, `${pod.podIp} answers nothing from now on`);
  } catch (err) {
    ctx.emit(
      'sandbox-removed',
      pod,
      `${pod.podIp} refuses instead (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}
