import type { RequestRecord } from '../load/index.ts';

/**
 * Outcome classes (docs/architecture.md, Load and tally). 503s are split by the gateway's response flag when the
 * response carries one; k6 error codes (k6 docs, "Error codes") name the network failures.
 */
export const OUTCOME_CLASSES = [
  'ok',
  'http_503_uf',
  'http_503_uc',
  'http_503_urx',
  'http_503_uh',
  'http_503',
  'other_5xx',
  'refused',
  'reset',
  'eof',
  'timeout',
  'h2',
  'other',
] as const;

export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** fortio's notion of success: 2xx, and 418 (the ASM runs' /status/418 target). */
export function isFortioOk(status: number): boolean {
  return status === 418 || (status >= 200 && status < 300);
}

/** k6 error codes by meaning. */
const K6 = {
  refused: 1212,
  resetByPeer: 1220,
  brokenPipe: 1201,
  requestTimeout: 1050,
  dialTimeout: 1211,
  generic: 1000,
};

/** `isOk` decides which statuses count as success (fortio counts 418 as OK for /status/418). */
export function classifyRecord(record: RequestRecord, isOk: (status: number) => boolean): OutcomeClass {
  if (record.status > 0) {
    if (isOk(record.status)) return 'ok';
    if (record.status === 503) {
      const flags = record.flag.split(',');
      // URX is reported with the failure that ended the last attempt; retries spent is the headline.
      if (flags.includes('URX')) return 'http_503_urx';
      if (flags.includes('UF')) return 'http_503_uf';
      if (flags.includes('UC')) return 'http_503_uc';
      if (flags.includes('UH')) return 'http_503_uh';
      return 'http_503';
    }
    return record.status >= 500 ? 'other_5xx' : 'other';
  }
  if (record.noResponse) return record.noResponse;
  const code = record.errorCode;
  if (code === K6.refused) return 'refused';
  if (code === K6.resetByPeer || code === K6.brokenPipe) return 'reset';
  if (code === K6.requestTimeout || code === K6.dialTimeout) return 'timeout';
  if (code >= 1600 && code < 1700) return 'h2';
  if (code === K6.generic && /\bEOF\b/.test(record.error)) return 'eof';
  return 'other';
}

/** The broad class a summary column counts it in (http_503 gathers every flag). */
export function summaryColumnOf(
  c: OutcomeClass,
): 'ok' | 'http_503' | 'other_5xx' | 'refused' | 'reset' | 'eof' | 'timeout' | 'h2' | 'other' {
  return c.startsWith('http_503') ? 'http_503' : (c as Exclude<OutcomeClass, `http_503${string}`>);
}
