import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clock } from '../lib/index.ts';
import { CaAnswerError, isTransientCaError } from './pki/ca-client.ts';
import {
  describeError,
  isTransientNetworkError,
  retryStartup,
  STARTUP_BACKOFF,
  StartupError,
} from './startup-retry.ts';

/** A clock whose sleeps pass at once, moving its time by what was asked; it records each wait. */
function steppingClock(): { clock: Clock; waits: number[] } {
  let nowMs = 0;
  const waits: number[] = [];
  return {
    waits,
    clock: {
      now: () => nowMs,
      sleep: (ms) => {
        waits.push(ms);
        nowMs += ms;
        return Promise.resolve();
      },
      wallOffsetMs: 0,
    },
  };
}

const refused = (address: string): Error =>
  Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });

test('transient failures are retried with doubling waits and each reason is reported', async () => {
  const { clock, waits } = steppingClock();
  const reasons: string[] = [];
  let calls = 0;
  const result = await retryStartup({
    what: 'discovery subscription to 10.96.0.10:15010',
    attempt: () =>
      ++calls <= 3 ? Promise.reject(refused('10.96.0.10:15010')) : Promise.resolve('subscribed'),
    isTransient: isTransientNetworkError,
    clock,
    onRetry: ({ attempt, reason, retryInMs }) =>
      reasons.push(`${String(attempt)}: ${reason} (${String(retryInMs)} ms)`),
  });
  assert.equal(result, 'subscribed');
  assert.deepEqual(waits, [100, 200, 400]);
  assert.deepEqual(reasons, [
    '1: connect ECONNREFUSED 10.96.0.10:15010 (100 ms)',
    '2: connect ECONNREFUSED 10.96.0.10:15010 (200 ms)',
    '3: connect ECONNREFUSED 10.96.0.10:15010 (400 ms)',
  ]);
});

test('a refusal from the CA (4xx) fails at once, naming the answer', async () => {
  const { clock, waits } = steppingClock();
  let calls = 0;
  const failure = retryStartup({
    what: 'certificate for istio-system/ztunnel from https://istiod.istio-system.svc:15012',
    attempt: () => {
      calls++;
      return Promise.reject(
        new CaAnswerError(
          'https://istiod.istio-system.svc:15012',
          401,
          'request impersonation authentication failure',
        ),
      );
    },
    isTransient: isTransientCaError,
    clock,
  });
  await assert.rejects(failure, (err: unknown) => {
    assert.ok(err instanceof StartupError);
    assert.equal(err.code, 'STARTUP_REFUSED');
    assert.equal(err.attempts, 1);
    assert.match(
      err.message,
      /ztunnel from https:\/\/istiod\S+ failed \(not retried\): CA \S+ answered 401: request impersonation/,
    );
    return true;
  });
  assert.equal(calls, 1);
  assert.deepEqual(waits, []);
});

test('retries stop after the bounded total time with the last reason: 100 ms doubling, capped at 5 s, 60 s', async () => {
  const { clock, waits } = steppingClock();
  let calls = 0;
  const failure = retryStartup({
    what: 'certificate for default/httpbin from https://istiod.istio-system.svc:15012',
    attempt: () => {
      calls++;
      return Promise.reject(
        new CaAnswerError('https://istiod.istio-system.svc:15012', 503, `down (${String(calls)})`),
      );
    },
    isTransient: isTransientCaError,
    clock,
  });
  await assert.rejects(failure, (err: unknown) => {
    assert.ok(err instanceof StartupError);
    assert.equal(err.code, 'STARTUP_GAVE_UP');
    assert.match(
      err.message,
      /^certificate for default\/httpbin from \S+ still failing after 17 attempts in 56\.3 s \(retries stop at 60 s\); last error: CA \S+ answered 503: down \(17\)$/,
    );
    return true;
  });
  assert.equal(STARTUP_BACKOFF.giveUpAfterMs, 60_000);
  assert.deepEqual(waits, [100, 200, 400, 800, 1600, 3200, ...Array<number>(10).fill(5000)]);
  assert.equal(calls, 17);
  assert.ok(waits.reduce((a, b) => a + b, 0) <= STARTUP_BACKOFF.giveUpAfterMs);
});

test('which failures are worth another attempt', () => {
  const address = 'https://istiod.istio-system.svc:15012';
  const cases: [string, unknown, boolean][] = [
    ['CA 500 (signing error)', new CaAnswerError(address, 500, 'CSR signing error'), true],
    ['CA 503', new CaAnswerError(address, 503, 'unavailable'), true],
    ['CA 429', new CaAnswerError(address, 429, 'slow down'), true],
    [
      'CA 401 (token or node authorizer)',
      new CaAnswerError(address, 401, 'request authenticate failure'),
      false,
    ],
    ['CA 403', new CaAnswerError(address, 403, 'forbidden'), false],
    ['CA 400 (bad CSR)', new CaAnswerError(address, 400, 'bad csr'), false],
    ['connection refused', refused('10.96.0.12:15012'), true],
    [
      'name not resolved yet',
      Object.assign(new Error('getaddrinfo ENOTFOUND istiod'), { code: 'ENOTFOUND' }),
      true,
    ],
    [
      'DNS server not answering',
      Object.assign(new Error('getaddrinfo EAI_AGAIN istiod'), { code: 'EAI_AGAIN' }),
      true,
    ],
    ['no answer in time', Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' }), true],
    ['refused, wrapped as a cause', new Error('fetch failed', { cause: refused('10.96.0.1:443') }), true],
    [
      'certificate does not verify',
      Object.assign(new Error('unable to verify the first certificate'), {
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      }),
      false,
    ],
    ['wrong identity signed', new Error('expected identity spiffe://a, got spiffe://b'), false],
  ];
  for (const [name, err, expected] of cases) assert.equal(isTransientCaError(err), expected, name);
});

test('a connect to several addresses fails with an AggregateError: its parts give the reason', () => {
  const err = Object.assign(
    new AggregateError([refused('10.96.0.10:15010'), refused('[fd00::10]:15010')], ''),
    { code: 'ECONNREFUSED' },
  );
  assert.equal(
    describeError(err),
    'connect ECONNREFUSED 10.96.0.10:15010; connect ECONNREFUSED [fd00::10]:15010',
  );
  assert.equal(isTransientNetworkError(err), true);
});
