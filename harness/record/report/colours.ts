/** Failure classes and their colours (fixed, so plots of different runs read the same). */
export const FAILURE_COLOURS: Record<string, string> = {
  http_503_uf: '#d62728',
  http_503_uc: '#ff7f0e',
  http_503_urx: '#8c564b',
  http_503_uh: '#e377c2',
  http_503: '#bcbd22',
  other_5xx: '#9467bd',
  refused: '#17becf',
  reset: '#1f77b4',
  eof: '#7f7f7f',
  timeout: '#2ca02c',
  h2: '#aec7e8',
  other: '#393b79',
};
/** The failure classes, in the order they stack (bottom first) and appear in legends. */
export const FAILURE_CLASSES: readonly string[] = Object.keys(FAILURE_COLOURS);
export const OK_COLOUR = '#4c78a8';
/**
 * OK requests in the zoom's stacked bars: a light grey that no failure class comes near (a light
 * blue would be h2's), so failures stand out on it.
 */
export const OK_BAR_COLOUR = '#d9d9d9';
export const DRAIN_COLOUR = '#fdd0a2';
export const EVENT_COLOUR = '#555555';
/** The fault (rollout restart, scale): a solid rule across every panel. */
export const FAULT_COLOUR = '#6a3d9a';
/** Component groups of the CPU panel and their colours. */
export const CPU_COLOURS: Record<string, string> = {
  // The load generator (fortio or k6); runs before schema 7 named its group k6.
  generator: '#7f7f7f',
  k6: '#7f7f7f',
  harness: '#000000',
  gateway: '#1f77b4',
  ztunnel: '#d62728',
  httpbin: '#2ca02c',
};

/**
 * A nominal colour scale over the values a plot actually draws, in `order` (values not in it last),
 * so a legend lists what is there and nothing else.
 */
export function colourScaleOf(
  present: Iterable<string>,
  options: { order: readonly string[]; colours: Record<string, string>; fallback: string },
): { domain: string[]; range: string[] } {
  const seen = new Set(present);
  const domain = [
    ...options.order.filter((v) => seen.has(v)),
    ...[...seen].filter((v) => !options.order.includes(v)),
  ];
  return { domain, range: domain.map((v) => options.colours[v] ?? options.fallback) };
}
