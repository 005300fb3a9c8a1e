import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENTRY_REPORTS, spread } from './entry-reports.ts';

test('spread: min / median / max, the median of two values without binary-fraction noise', () => {
  const rows = [{ x: '14.39' }, { x: '15.6' }];
  assert.equal(
    spread(rows, (r) => Number(r['x'])),
    '14.39 / 14.995 / 15.6',
  );
  assert.equal(
    spread([{ x: '3' }], (r) => Number(r['x'])),
    '3',
  );
});

test("versions: the binary's release, each figure the runs have with its spread, none they lack", () => {
  const e2 = [
    {
      ztunnel_version: '1.28.1',
      requests: '1000',
      ok: '985',
      bursts: '3',
      max_burst_ms: '410',
      removal_lag_ms: '120',
    },
    {
      ztunnel_version: '1.28.1',
      requests: '1000',
      ok: '988',
      bursts: '3',
      max_burst_ms: '380',
      removal_lag_ms: '',
    },
    {
      ztunnel_version: '1.28.1',
      requests: '1000',
      ok: '982',
      bursts: '3',
      max_burst_ms: '500',
      removal_lag_ms: '140',
    },
  ];
  assert.equal(
    ENTRY_REPORTS.versions(e2),
    '1.28.1: failed 12 / 15 / 18 of 1000 / 1000 / 1000; bursts 3 / 3 / 3; longest 380 / 410 / 500 ms; removal lag 120 / 130 / 140 ms',
  );
  // Our ztunnel has no binary: the row's ztunnel_version is empty.
  const e3 = [
    { ztunnel_version: '', requests: '900', ok: '900', long_lived_fin: '0', long_lived_reset: '10' },
  ];
  assert.equal(ENTRY_REPORTS.versions(e3), 'ours: failed 0 of 900; long-lived FIN; RST 0 ; 10');
});

test("success: a peer test's figure, the success rate, then where the failures were, each a spread", () => {
  const run = (ok: string, lag: string) => ({
    requests: '750',
    ok,
    bursts: '2',
    bursts_after_sigterm: '2',
    deadline_failed_before_drop: '',
    deadline_failed_after_drop: '',
    removal_lag_ms: lag,
  });
  assert.equal(
    ENTRY_REPORTS.success([run('742', '369'), run('743', '397'), run('743', '')]),
    "success 98.93 / 99.07 / 99.07 %; failed 7 / 7 / 8 of 750 / 750 / 750; bursts 2 / 2 / 2, after a pod's SIGTERM 2 / 2 / 2; " +
      'at drain deadlines 0 / 0 / 0; removal lag 369 / 383 / 397 ms',
  );
  const ztunnel = {
    requests: '1200',
    ok: '1199',
    bursts: '1',
    bursts_after_sigterm: '0',
    deadline_failed_after_drop: '1',
  };
  assert.equal(
    ENTRY_REPORTS.success([ztunnel]),
    "success 99.92 %; failed 1 of 1200; bursts 1, after a pod's SIGTERM 0; at drain deadlines 1",
  );
});
