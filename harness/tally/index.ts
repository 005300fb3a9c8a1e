export { findBursts } from './bursts.ts';
export type { Burst } from './bursts.ts';
export { classifyRecord, OUTCOME_CLASSES, summaryColumnOf } from './classify.ts';
export type { OutcomeClass } from './classify.ts';
export { tallyRecords } from './tally-records.ts';
export type { RecordTally } from './tally-records.ts';
export { createTimeline } from './timeline.ts';
export type { Timeline } from './timeline.ts';
