/**
 * Holm's step-down adjustment (Holm 1979): controls the chance of any false alarm across every test of
 * a comparison, so a nightly comparing dozens of configurations and classes does not cry wolf at the
 * rate one test's alpha would. Returns adjusted p-values in the input order.
 */
export function adjustHolm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
