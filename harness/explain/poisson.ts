/**
 * The central interval of a Poisson count with mean `mean`: the smallest k_low and k_high with
 * P(X < k_low) <= (1 - level) / 2 and P(X > k_high) <= (1 - level) / 2. The count a mechanism
 * predicts varies run to run by this much even when the mechanism is exactly right.
 */
export function poissonInterval(mean: number, level = 0.95): [number, number] {
  if (!(mean > 0)) return [0, 0];
  const tail = (1 - level) / 2;
  let k = 0;
  let p = Math.exp(-mean); // P(X = 0); underflows past mean ~745, where a normal approximation serves
  if (p === 0) {
    const half = 1.959964 * Math.sqrt(mean);
    return [Math.max(0, Math.floor(mean - half)), Math.ceil(mean + half)];
  }
  let cdf = p;
  while (cdf < tail) {
    k++;
    p *= mean / k;
    cdf += p;
  }
  const low = k;
  while (cdf < 1 - tail) {
    k++;
    p *= mean / k;
    cdf += p;
  }
  return [low, k];
}
