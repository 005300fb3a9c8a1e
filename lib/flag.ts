/**
 * A command-line flag, declared once: every option of ours is written in this form. The experiment's
 * options add to it what a run parameter needs (harness/options/option.ts FlagSpec, ParamSpec), the
 * arms their column and component (arms.ts ArmSpec); a backend declares its own options as plain
 * flags (clusters/backend-option.ts), and so does every command (harness/bin/). Commander's options
 * (one builder: harness/cli/commander-option.ts), experiment files and docs/reference.md are all
 * made from these fields.
 */
export interface Flag<V> {
  /** The long flag without dashes, also the experiment file's key: `restart-at`. */
  key: string;
  /** A one-letter alias: `-c`. */
  short?: string;
  /** The value's placeholder (`<s>`); absent for a switch. */
  arg?: string;
  /** One line for --help: what it is and its choices (a test holds it to 120 characters). */
  description: string;
  /** What the reference (docs/reference.md) says after it: the mechanism, where it applies, why. */
  detail?: string;
  /** Parses and checks a raw value (bad input: lib's badInput, exit 2 naming the flag); absent: the raw string. */
  parse?: (raw: string, previous: V) => V;
  default?: V;
}
