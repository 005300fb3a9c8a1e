// The backends, the only file that names them (kind's pkg/cluster/provider.go). Everything else holds
// a BackendProvider from here (clusters/provider.ts) and asks it; a new backend is a folder exporting
// its provider and one line below.
import type { BackendOption } from './backend-option.ts';
import { CLUSTER_PROVIDER } from './cluster/provider.ts';
import { KIND_ISTIO_PROVIDER } from './kind-istio/provider.ts';
import { LOCAL_PROVIDER } from './local/provider.ts';
import type { BackendColumnSpec, BackendProvider, Capability } from './provider.ts';

/** Every backend, the default (--backend's) first: --backend's choices and help in this order. */
export const BACKENDS = [LOCAL_PROVIDER, KIND_ISTIO_PROVIDER, CLUSTER_PROVIDER] as const;

export type BackendName = (typeof BACKENDS)[number]['name'];

/** A tuple of providers' names, as a tuple (`readonly ['local', 'kind']`). */
type NamesOf<T extends readonly { name: string }[]> = {
  readonly [I in keyof T]: T[I] extends { name: infer N } ? N : never;
};

/** The names, in BACKENDS' order: --backend's choices. */
export const BACKEND_NAMES = BACKENDS.map((b) => b.name) as unknown as NamesOf<typeof BACKENDS>;

export const DEFAULT_BACKEND: BackendName = BACKENDS[0].name;

/** From this schema on, a backend's new column goes at the header's end, whichever backend declares it. */
const APPENDED_SINCE = 17;

/**
 * The backends' own result columns in runs.csv's order, after the shared ones. A CSV's header only
 * grows at its end (an existing runs.csv refuses a row whose header differs): kind's columns came
 * before local's timing columns, a new backend's went last, and since schema 17 each new column goes
 * last, in schema order.
 */
export const BACKEND_OWN_COLUMNS: readonly BackendColumnSpec[] = (() => {
  const all = [
    ...new Map(
      [KIND_ISTIO_PROVIDER, LOCAL_PROVIDER, ...BACKENDS].flatMap((b) => b.columns).map((c) => [c.name, c]),
    ).values(),
  ];
  const since = (c: BackendColumnSpec): number => c.added?.since ?? 0;
  return [
    ...all.filter((c) => since(c) < APPENDED_SINCE),
    ...all.filter((c) => since(c) >= APPENDED_SINCE).sort((a, b) => since(a) - since(b)),
  ];
})();

export function isBackendName(name: string): name is BackendName {
  return (BACKEND_NAMES as readonly string[]).includes(name);
}

/** The provider of a backend by name (the CLI has checked the name against BACKEND_NAMES). */
export function providerOf(name: BackendName): BackendProvider<BackendName> {
  const provider = BACKENDS.find((b) => b.name === name);
  if (!provider) throw new Error(`no backend named ${name}`);
  return provider;
}

/** The backends that have every one of these capabilities, the default first. */
export function backendsWithCapabilities(needs: readonly Capability[]): BackendName[] {
  return BACKENDS.filter((b) => needs.every((c) => b.capabilities.has(c))).map((b) => b.name);
}

/** The backends that declare the option `key` as their own, in BACKENDS' order. */
export function backendsWithOption(key: string): BackendName[] {
  return BACKENDS.filter((b) => b.options.some((o) => o.key === key)).map((b) => b.name);
}

/** Every backend's own options, each key once (the first backend to declare a key keeps it). */
export function allBackendOptions(): BackendOption[] {
  const byKey = new Map<string, BackendOption>();
  for (const option of BACKENDS.flatMap((b) => b.options))
    if (!byKey.has(option.key)) byKey.set(option.key, option);
  return [...byKey.values()];
}
