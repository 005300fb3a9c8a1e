/**
 * One command-line option a backend adds to `npm run experiment` (and to experiment files), declared
 * by the backend itself: the CLI's option table takes every backend's from the registry
 * (allBackendOptions), and the values come back to the backend's create() as `settings`, by key.
 */
export interface BackendOption {
  /** Long flag without dashes, also the experiment-file key: 'kind-ingress-port'. */
  key: string;
  /** commander's flags text: '--kind-ingress-port <port>' or '--keep-cluster' for a switch. */
  flags: string;
  /** One line for --help; `detail` is what the reference says after it. */
  description: string;
  detail?: string;
  /** Parses and checks the raw value (throw lib's badInput on bad input); absent for a switch. */
  parse?: (raw: string) => unknown;
  default?: unknown;
}
