type Row = Record<string, string | number>;

/**
 * envoy-counters.csv (one row per cluster and counter) as a compact table: one row per counter, one
 * column per cluster, the change over the run in each cell ('' where the cluster has no such row).
 */
export function pivotEnvoyCounters(rows: readonly Row[]): Row[] {
  const clusters = [...new Set(rows.map((r) => String(r['cluster'])))];
  const byCounter = new Map<string, Row>();
  for (const r of rows) {
    const counter = String(r['counter']);
    const row = byCounter.get(counter) ?? {
      counter,
      ...Object.fromEntries(clusters.map((c) => [c, ''])),
    };
    row[String(r['cluster'])] = r['delta'] ?? '';
    byCounter.set(counter, row);
  }
  return [...byCounter.values()];
}
