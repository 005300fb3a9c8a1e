/**
 * Stable error codes: scripts and tests match on these, never on message text.
 * `exitCode` follows the CLI contract: 2 for input the user must fix (including a missing tool),
 * 1 for anything else that failed.
 */
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

  get exitCode(): 1 | 2 {
    return USER_FIXABLE.has(this.code) ? 2 : 1;
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
