// What every section of the summary row reads: the run's parameters, tally, figures and facts.
import type { ExperimentParams } from '../../options/experiment-params.ts';
import type { RecordTally } from '../../tally/index.ts';
import type { RunFigures } from '../../verdict/run-figures.ts';
import type { RunFacts } from './run-facts.ts';

export interface RowInput {
  params: ExperimentParams;
  /** Absent when the run ended before a tally (an early abort): counts are empty then. */
  tally: RecordTally | undefined;
  figures: RunFigures;
  facts: RunFacts;
  /** A run-clock time as seconds from load start (3 decimals), '' when unknown. */
  rel: (ms: number | undefined) => string;
}
