// Durations as fortio and k6 users type them: Go's time.ParseDuration syntax (`60s`, `2m`, `500ms`,
// `1h`, `1m30s`; units ns, us/µs, ms, s, m, h, a sequence of decimal numbers each with its unit,
// summed), plus a bare decimal number meaning seconds, as our flags always took. Go counts integer
// nanoseconds (src/time/format.go, ParseDuration); so does this, before turning them into seconds.

const NS_PER_UNIT: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 MICRO SIGN, as Go accepts it
  μs: 1e3, // U+03BC GREEK SMALL LETTER MU, as Go accepts it
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** A plain decimal: `120`, `0.5`, `.5` (not `1e9`, `0x10`, ` 5 `, which Number() would take). */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** One Go duration component: a decimal (`1`, `1.5`, `.5`, `5.`) and its unit. */
const COMPONENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Seconds in `raw`: a bare decimal number (seconds) or a Go duration. Undefined when `raw` is neither
 * (empty, a wrong unit such as `60x` or `60sec`, spaces, `1e3`). The sign is kept, so a caller's
 * range check reports `-1s` as out of range rather than as malformed.
 */
export function parseDurationSeconds(raw: string): number | undefined {
  if (DECIMAL.test(raw)) return Number(raw);
  const sign = raw.startsWith('-') ? -1 : 1;
  const body = raw.replace(/^[-+]/, '');
  if (body === '') return undefined;
  let totalNs = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < body.length) {
    const at = COMPONENT.lastIndex;
    const match = COMPONENT.exec(body);
    if (!match || match.index !== at) return undefined;
    const [, amount = '', unit = ''] = match;
    totalNs += Number(amount) * (NS_PER_UNIT[unit] ?? NaN);
  }
  // Whole nanoseconds, as Go keeps them; Infinity (an absurdly long number) stays Infinity.
  const seconds = (sign * Math.round(totalNs)) / 1e9;
  return Number.isNaN(seconds) ? undefined : seconds;
}

/** What the help and error messages say a duration may look like. */
export const DURATION_FORMS = 'seconds as a number (90) or with units as in Go (90s, 2m, 1m30s, 500ms, 1h)';
