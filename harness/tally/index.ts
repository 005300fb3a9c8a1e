export { findBursts } from './bursts.ts';
export type { Burst } from './bursts.ts';
export { classifyRecord, isFortioOk, OUTCOME_CLASSES, summaryColumnOf } from './classify.ts';
export type { OutcomeClass } from './classify.ts';
export { createRecordTally, FINE_BUCKET_MS } from './tally-records.ts';
export type { RecordTally, RecordTallySink } from './tally-records.ts';
export { createTimeline } from './timeline.ts';
export type { Timeline } from './timeline.ts';
