import { badInput } from '../../lib/index.ts';
import { DURATION_FORMS, parseDurationSeconds } from './duration.ts';

const DECIMAL = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * Commander argument parsers that throw the project's bad-input error (exit 2) with the flag named.
 * With `unit: 'seconds'` the value may also be a Go duration (`90s`, `2m`, `1m30s`, duration.ts); the
 * value returned is still a number of seconds.
 */
export function numberParser(
  flag: string,
  options: { min: number; max?: number; integer?: boolean; unit?: string },
) {
  const noun = `${options.integer ? 'integer' : 'number'}${options.unit ? ` of ${options.unit}` : ''}`;
  const max = options.max ?? Infinity;
  const expected =
    options.max !== undefined
      ? `${options.integer ? 'an' : 'a'} ${noun} from ${String(options.min)} to ${String(options.max)}`
      : options.min === 0
        ? `a non-negative ${noun}`
        : `${options.integer ? 'an' : 'a'} ${noun} >= ${String(options.min)}`;
  const isDuration = options.unit === 'seconds';
  return (raw: string): number => {
    // Decimal notation only: Number() would also take "1e9", "0x10", "0b1" and " 5 ".
    const parsed = isDuration ? parseDurationSeconds(raw) : DECIMAL.test(raw) ? Number(raw) : undefined;
    const value = parsed ?? NaN;
    if (
      !Number.isFinite(value) ||
      value < options.min ||
      value > max ||
      (options.integer && !Number.isInteger(value))
    ) {
      // A malformed duration gets the forms it may take; a well-formed one out of range, the range.
      throw isDuration && parsed === undefined
        ? badInput(flag, expected, raw, DURATION_FORMS)
        : badInput(flag, expected, raw);
    }
    return value;
  };
}

/**
 * `--restart-at`: "none", or a non-negative number of seconds (a Go duration too), returned as the
 * decimal string of those seconds (the flag stays a string for "none"; experiment-program.ts checks
 * it against --duration once both are known).
 */
export function restartAtParser(flag: string) {
  return (raw: string): string => {
    if (raw === 'none') return raw;
    const seconds = parseDurationSeconds(raw);
    if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0)
      throw badInput(flag, 'a number of seconds in [0, --duration) or "none"', raw, DURATION_FORMS);
    return String(seconds);
  };
}

export function choiceParser<T extends string>(flag: string, choices: readonly T[]) {
  return (raw: string): T => {
    if ((choices as readonly string[]).includes(raw)) return raw as T;
    throw badInput(flag, `one of ${choices.join(', ')}`, raw);
  };
}

/**
 * A request target in origin form (RFC 9112 3.2.1): an absolute path and an optional query, of RFC
 * 3986's characters only (pchar: unreserved, sub-delims, ":", "@"; "/" between segments; "?" and "/"
 * in the query), every "%" starting a percent-encoding of two hex digits. No space, control character
 * or fragment: fortio and k6 would send what they were given, or refuse it mid-run.
 */
const ORIGIN_FORM =
  /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$/;

export function pathParser(flag: string) {
  return (raw: string): string => {
    if (!ORIGIN_FORM.test(raw))
      throw badInput(
        flag,
        'a URL path starting with "/" (RFC 3986 characters, percent-encoded otherwise; an optional ?query)',
        raw,
        'e.g. /status/418 or /delay/1?x=%20',
      );
    return raw;
  };
}

/** No step of the timing model takes longer than a minute. */
export const TIMING_MAX_MS = 60_000;

/** Repeatable `--timing name=ms`: collects overrides of the local backend's timing model. */
export function timingParser(flag: string, names: readonly string[], maxMs = TIMING_MAX_MS) {
  return (raw: string, previous: Record<string, number> = {}): Record<string, number> => {
    const match = /^([A-Za-z]+)=(\d+(?:\.\d+)?)$/.exec(raw);
    if (!match?.[1] || !names.includes(match[1]) || Number(match[2]) > maxMs)
      throw badInput(
        flag,
        `name=milliseconds (0 to ${String(maxMs)}) with name one of ${names.join(', ')}`,
        raw,
        'e.g. --timing pushLatencyMs=100',
      );
    return { ...previous, [match[1]]: Number(match[2]) };
  };
}
