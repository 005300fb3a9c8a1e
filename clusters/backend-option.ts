import type { Flag } from '../lib/index.ts';

/**
 * One command-line option a backend adds to `npm run experiment` (and to experiment files), declared
 * by the backend itself in the form every option has (lib/flag.ts): the CLI's option table takes
 * every backend's from the registry (allBackendOptions), and the values come back to the backend's
 * create() as `settings`, by key. `npm run cluster`'s commands take the cluster backend's from here.
 */
export interface BackendOption extends Omit<Flag<unknown>, 'parse'> {
  /** A backend's options are never repeated: its parser reads the raw value alone. */
  parse?: (raw: string) => unknown;
}
