/**
 * A networking.istio.io object as the API server holds it, checked by nothing yet: the API server
 * validated it against the CRD's schema, but istiod's own validation webhook may not have run (ours
 * is not installed) and the object may come from a newer API. Every field is checked here before use.
 */
export interface IstioObject {
  namespace: string;
  name: string;
  /** metadata.creationTimestamp (RFC 3339): istiod orders configs by it, then by name. */
  creationTimestamp?: string;
  spec: unknown;
}

/** What ordering configs reads of them. */
export type ConfigMeta = Pick<IstioObject, 'namespace' | 'name' | 'creationTimestamp'>;

/** What parsing one object gave: the config (when usable) and why parts of it were left out. */
export interface Parsed<T> {
  config?: T;
  problems: string[];
}

export type Fields = Readonly<Record<string, unknown>>;

export const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A list of strings, or undefined when `v` is not one (absent counts as empty). */
export function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : undefined;
}

/** A string map (labels, a selector), or undefined when `v` is not one. */
export function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isFields(v)) return undefined;
  return Object.values(v).every((s) => typeof s === 'string') ? (v as Record<string, string>) : undefined;
}

/** The keys of `fields` set to something (not null) that are not in `known`. */
export const otherKeys = (fields: Fields, known: readonly string[]): string[] =>
  Object.keys(fields).filter((k) => fields[k] !== null && fields[k] !== undefined && !known.includes(k));

export const isPortNumber = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 65_536;

/** Go's strings.Compare (code units, not the locale's collation). */
const compareBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * configCompareByCreationTime (pilot/pkg/model/config.go): oldest first, then name, then namespace;
 * istiod sorts Gateways and VirtualServices this way before merging them.
 */
export function compareByCreation(a: ConfigMeta, b: ConfigMeta): number {
  const at = Date.parse(a.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.creationTimestamp ?? '') || 0;
  return at - bt || compareBytes(a.name, b.name) || compareBytes(a.namespace, b.namespace);
}
