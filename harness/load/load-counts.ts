import type { RequestRecord } from './k6-records.ts';

/** Per-request outcomes counted by HTTP status and by k6 error code. */
export interface LoadCounts {
  total: number;
  byStatus: Map<number, number>;
  byErrorCode: Map<number, number>;
  firstStartWallMs: number;
  lastEndWallMs: number;
  durationSumMs: number;
}

export function createLoadCounts(): LoadCounts {
  return {
    total: 0,
    byStatus: new Map(),
    byErrorCode: new Map(),
    firstStartWallMs: Infinity,
    lastEndWallMs: -Infinity,
    durationSumMs: 0,
  };
}

export function addRecord(counts: LoadCounts, record: RequestRecord): void {
  counts.total++;
  counts.byStatus.set(record.status, (counts.byStatus.get(record.status) ?? 0) + 1);
  counts.byErrorCode.set(record.errorCode, (counts.byErrorCode.get(record.errorCode) ?? 0) + 1);
  counts.firstStartWallMs = Math.min(counts.firstStartWallMs, record.startWallMs);
  counts.lastEndWallMs = Math.max(counts.lastEndWallMs, record.startWallMs + record.durationMs);
  counts.durationSumMs += record.durationMs;
}
