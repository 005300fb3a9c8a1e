import { badInput } from '../lib/index.ts';
import type { HarnessError } from '../lib/index.ts';
import { CAPABILITIES } from './provider.ts';
import type { Capability } from './provider.ts';
import { BACKENDS, providerOf } from './registry.ts';
import type { BackendName } from './registry.ts';

// The capabilities are declared where a backend declares what it is (provider.ts), each backend's set
// by the backend itself (its provider.ts); here is what an experiment asks of them.
export { CAPABILITIES } from './provider.ts';
export type { Capability } from './provider.ts';
export type { BackendName } from './registry.ts';

/** Something an experiment asks for that needs a capability: the flag (or scenario) and its value. */
export interface Requirement {
  capability: Capability;
  flag: string;
  value: string | number;
  /** Why this needs it, when more specific than the capability's own description. */
  why?: string;
}

/** The bad-input error for the first requirement the backend lacks, or undefined when it has all. */
export function refusal(
  backend: BackendName,
  requirements: readonly Requirement[],
): HarnessError | undefined {
  const { capabilities } = providerOf(backend);
  const missing = requirements.find((r) => !capabilities.has(r.capability));
  if (!missing) return undefined;
  const other = BACKENDS.find((b) => b.capabilities.has(missing.capability))?.name;
  return badInput(
    missing.flag,
    `something --backend ${backend} can run`,
    missing.value,
    `it needs ${CAPABILITIES[missing.capability]}${missing.why ? `: ${missing.why}` : ''}${other ? `; run it with --backend ${other}` : ''}`,
  );
}
