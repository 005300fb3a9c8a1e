// The columns a scenario's companion adds to its rows (CompanionResult.columns), each a measure,
// declared here with the row's own (columns/): the scenario names its set, and runs.csv's
// readers (compare's key, the reference, a suite's shape rules) find every one here.

/** E3 (long-lived): what happened to the long-lived connections across the ztunnel restart. */
export const LONG_LIVED_COLUMNS = {
  long_lived_connections: 'E3: long-lived connections opened',
  long_lived_fin: 'E3: of them, ended by a FIN',
  long_lived_reset: 'E3: of them, ended by a RST',
  long_lived_ended_at_deadline: "E3: of them, ended at their node's ztunnel drain deadline",
  long_lived_end_offset_s: "E3: when each ended, seconds after its node's ztunnel SIGTERM",
  long_lived_reconnects: 'E3: reconnects after an end',
  long_lived_reconnect_failures: 'E3: reconnects that failed',
} as const;

/** Every companion column, by name, with its note (each a measure). */
export const COMPANION_COLUMNS: Readonly<Record<string, string>> = { ...LONG_LIVED_COLUMNS };
