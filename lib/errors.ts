/**
 * Stable error codes: scripts and tests match on these, never on message text.
 * `exitCode` follows the CLI contract (`EXIT`): 2 for input the user must fix (including a missing
 * tool), 130 for an interruption, 3 for anything else: the command could not do its job. Exit 1 is
 * kept for a result that was reached and is a failure (a verdict, a shape, a regression), so a
 * script can tell "the experiment ran and failed" from "it could not run".
 */
export const EXIT = {
  pass: 0,
  /** The experiment ran; its verdict (or a suite's shape, or compare's gate) failed. */
  failed: 1,
  badInput: 2,
  /** The experiment could not run: a component failed, a tool could not be built, the load failed. */
  couldNotRun: 3,
  interrupted: 130,
} as const;

export const ErrorCode = {
  /** A CLI flag, config value or input file is invalid. */
  BadInput: 'BAD_INPUT',
  /** A required external tool (k6, go, kind, docker) is missing or the wrong version. */
  ToolMissing: 'TOOL_MISSING',
  /** Building or downloading a tool failed. */
  ProvisionFailed: 'PROVISION_FAILED',
  /** The load generator failed to run or its output could not be read. */
  LoadFailed: 'LOAD_FAILED',
  /** A component of the system under test crashed or misbehaved. */
  ComponentFailed: 'COMPONENT_FAILED',
  /** The run was cancelled (Ctrl-C, SIGTERM, abort signal). */
  Aborted: 'ABORTED',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const USER_FIXABLE: ReadonlySet<ErrorCode> = new Set([ErrorCode.BadInput, ErrorCode.ToolMissing]);

export class HarnessError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HarnessError';
    this.code = code;
  }

  get exitCode(): 2 | 3 | 130 {
    if (USER_FIXABLE.has(this.code)) return EXIT.badInput;
    return this.code === ErrorCode.Aborted ? EXIT.interrupted : EXIT.couldNotRun;
  }
}

export function isHarnessError(err: unknown, code?: ErrorCode): err is HarnessError {
  return err instanceof HarnessError && (code === undefined || err.code === code);
}

/** `Expected --grace to be a non-negative number of seconds, got "abc"`. */
export function badInput(what: string, expected: string, received: unknown, hint?: string): HarnessError {
  const got = typeof received === 'string' ? JSON.stringify(received) : String(received);
  const tail = hint ? `; ${hint}` : '';
  return new HarnessError(ErrorCode.BadInput, `Expected ${what} to be ${expected}, got ${got}${tail}`);
}
