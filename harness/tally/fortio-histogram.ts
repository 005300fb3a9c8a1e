// fortio's latency histogram, ported from fortio/fortio stats/stats.go (Counter, Histogram.record,
// Export, CalcPercentile) so a run's fortio.json carries the same buckets and percentiles fortio
// itself would compute from the same durations: fixed bucket bounds scaled by `divider` (fortio's
// -r resolution, 0.001 s by default), intervals open on the left ]start, end], the first bucket
// starting at Min and the last ending at Max, percentiles interpolated linearly inside a bucket.

/** fortio's histogramBucketValues. */
const BUCKET_VALUES = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 120,
  140, 160, 180, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800, 900, 1000, 2000, 3000, 4000, 5000, 7500,
  10000, 20000, 30000, 40000, 50000, 75000, 100000,
] as const;
const NUM_VALUES = BUCKET_VALUES.length;
const NUM_BUCKETS = NUM_VALUES + 1;
const FIRST = BUCKET_VALUES[0];
const LAST = 100000; // BUCKET_VALUES' last

/** fortio's default percentiles (-p "50,75,90,99,99.9"). */
export const FORTIO_PERCENTILES = [50, 75, 90, 99, 99.9];

export interface FortioBucket {
  Start: number;
  End: number;
  Percent: number;
  Count: number;
}

export interface FortioHistogramData {
  Count: number;
  Min: number;
  Max: number;
  Sum: number;
  Avg: number;
  StdDev: number;
  Data: FortioBucket[];
  Percentiles?: { Percentile: number; Value: number }[];
}

export interface FortioHistogram {
  record(value: number): void;
  /** Export().CalcPercentiles(percentiles). */
  export(percentiles?: readonly number[]): FortioHistogramData;
}

/** The bucket index of a scaled value (record's lookup, with its open-interval adjustment). */
function bucketOf(scaled: number): number {
  if (scaled <= FIRST) return 0;
  if (scaled > LAST) return NUM_BUCKETS - 1;
  let whole = Math.trunc(scaled);
  if (scaled - whole < 1e-12) whole--;
  return BUCKET_VALUES.findIndex((bound) => bound > whole);
}

export function calcPercentile(data: FortioHistogramData, percentile: number): number {
  if (data.Data.length === 0) return 0;
  if (percentile >= 100) return data.Max;
  let previous = 100 / data.Count;
  if (percentile <= previous) return data.Min;
  for (const bucket of data.Data) {
    if (percentile <= bucket.Percent)
      return (
        bucket.Start + ((percentile - previous) / (bucket.Percent - previous)) * (bucket.End - bucket.Start)
      );
    previous = bucket.Percent;
  }
  return data.Max;
}

export function createFortioHistogram(offset = 0, divider = 0.001): FortioHistogram {
  const counts = new Array<number>(NUM_BUCKETS).fill(0);
  let count = 0;
  let min = 0;
  let max = 0;
  let sum = 0;
  let sumOfSquares = 0;
  return {
    record(value) {
      if (count === 0) min = max = value;
      else if (value < min) min = value;
      else if (value > max) max = value;
      count++;
      sum += value;
      sumOfSquares += value * value;
      const idx = bucketOf((value - offset) / divider);
      counts[idx] = (counts[idx] ?? 0) + 1;
    },
    export(percentiles = []) {
      const sigma = count === 0 ? 0 : (sumOfSquares - (sum * sum) / count) / count;
      const data: FortioHistogramData = {
        Count: count,
        Min: min,
        Max: max,
        Sum: sum,
        Avg: count === 0 ? 0 : sum / count,
        StdDev: sigma < 0 ? 0 : Math.sqrt(sigma),
        Data: [],
      };
      const lastIdx = counts.findLastIndex((n) => n > 0);
      let previous: number = FIRST;
      let total = 0;
      for (let i = 0; i <= lastIdx; i++) {
        const n = counts[i] ?? 0;
        const bound = i < NUM_VALUES ? BUCKET_VALUES[i] : undefined;
        if (n === 0) {
          if (bound !== undefined) previous = bound;
          continue;
        }
        total += n;
        data.Data.push({
          Start: data.Data.length === 0 ? min : divider * previous + offset,
          End: bound === undefined ? max : divider * bound + offset,
          Percent: (100 * total) / count,
          Count: n,
        });
        if (bound !== undefined) previous = bound;
      }
      const last = data.Data.at(-1);
      if (last) last.End = max;
      if (count > 0 && percentiles.length > 0)
        data.Percentiles = percentiles.map((p) => ({ Percentile: p, Value: calcPercentile(data, p) }));
      return data;
    },
  };
}
