// The row's lead: which row format and run, the generator that ran, what the tally counted by
// outcome, the bursts, the verdict and the 503s by Envoy's response flags.
import type { ColumnNote, Section } from './column.ts';
import { section } from './column.ts';
import type { RowInput } from './row-input.ts';

const bookkeeping = (note: string): ColumnNote => ({ role: 'bookkeeping', note });

/** The head; the schema version is read when a row is made (it is computed from every section's columns). */
export function headSection(schemaVersion: () => number): Section<RowInput> {
  return section(
    {
      schema_version: bookkeeping(
        'the row format; bumped whenever a column is added, removed or changes meaning',
      ),
      run_id: bookkeeping('the run folder name: UTC start time and scenario'),
    },
    ({ facts }) => ({ schema_version: schemaVersion(), run_id: facts.runId }),
  );
}

export const GENERATOR_SECTION = section(
  {
    // Schema 7: every older row's load came from k6.
    generator: {
      role: 'parameter',
      note: 'the load generator that ran (fortio or k6)',
      added: { since: 7, olderRowsRan: 'k6' },
    },
  },
  ({ facts }: RowInput) => ({ generator: facts.generator.kind }),
);

export const COUNT_SECTION = section(
  {
    requests: 'requests the load generator sent and the tally counted',
    ok: 'requests that succeeded (2xx, and 418 as fortio counts it)',
    http_503: 'every 503, whatever its response flags',
    other_5xx: '5xx other than 503',
    refused: 'connections refused',
    reset: 'connections reset by the peer',
    eof: 'connections closed before a response',
    timeout: 'requests past `--timeout`',
    other: 'any other failure (HTTP/2 errors included)',
    p50_ms: 'median request duration, ms',
    p99_ms: '99th percentile request duration, ms',
    bursts: 'failure bursts found (bursts.csv has one row each)',
    max_burst_ms: 'the longest burst, ms',
    verdict: bookkeeping('pass, fail or aborted'),
    reason: bookkeeping('why: the `--max-failed` budget and each `--threshold` with the value it met'),
    http_503_uf: "503s with Envoy's UF flag (upstream connection failure)",
    http_503_uc: '503s with UC (upstream connection termination)',
    http_503_urx: '503s with URX (retries exhausted)',
    http_503_uh: '503s with UH (no healthy upstream)',
    h2: 'HTTP/2 protocol errors',
  },
  // Requests by summary column (outcome classes folded as summaryColumnOf says), p50 and p99.
  ({ figures: f, tally, facts }: RowInput) => ({
    requests: f.requests,
    ok: f.ok,
    http_503: f.http_503,
    other_5xx: f.other_5xx,
    refused: f.refused,
    reset: f.reset,
    eof: f.eof,
    timeout: f.timeout,
    other: f.other,
    p50_ms: tally ? f.p50_ms.toFixed(2) : '',
    p99_ms: tally ? f.p99_ms.toFixed(2) : '',
    bursts: f.bursts,
    max_burst_ms: f.max_burst_ms,
    verdict: facts.verdict,
    reason: facts.reason,
    http_503_uf: f.http_503_uf,
    http_503_uc: f.http_503_uc,
    http_503_urx: f.http_503_urx,
    http_503_uh: f.http_503_uh,
    h2: f.h2,
  }),
);
