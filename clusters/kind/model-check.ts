// client-node's ObjectSerializer is not re-exported from the package index; its dist path is stable
// across 1.x and 2.x (KubernetesObjectApi uses it to type every response).
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../manifests/index.ts';

/** Paths present in `original` that the typed round trip dropped: fields the model does not have. */
function droppedPaths(original: unknown, typed: unknown, path: string): string[] {
  if (Array.isArray(original))
    return original.flatMap((v, i) =>
      droppedPaths(v, (typed as unknown[] | undefined)?.[i], `${path}[${String(i)}]`),
    );
  if (original === null || typeof original !== 'object') return [];
  const t = (typed ?? {}) as Record<string, unknown>;
  return Object.entries(original as Record<string, unknown>).flatMap(([k, v]) => {
    const at = path ? `${path}.${k}` : k;
    if (!(k in t)) return [at];
    // Free-form maps (labels, annotations, selectors) round-trip whole, so recursing finds nothing there.
    return droppedPaths(v, t[k], at);
  });
}

/**
 * Every object checked against client-node's model types (V1Deployment, V1Service, V1ClusterRole, ...):
 * a field the model does not know (a typo, a field from a newer API) is reported before anything is
 * applied, instead of being silently pruned by the API server.
 */
export function validateAgainstModels(objects: readonly KubernetesObject[]): void {
  for (const object of objects) {
    const type = `V1${object.kind ?? ''}`;
    const typed: unknown = ObjectSerializer.serialize(ObjectSerializer.deserialize(object, type), type);
    const dropped = droppedPaths(object, typed, '');
    if (dropped.length)
      throw new HarnessError(
        ErrorCode.BadInput,
        `${objectKey(object)}: ${dropped.join(', ')} ${dropped.length > 1 ? 'are not fields' : 'is not a field'} of ${type} (client-node's model); fix the manifest`,
      );
  }
}
