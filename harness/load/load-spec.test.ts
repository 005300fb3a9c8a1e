import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLoadEnv } from '../../k6-scripts/lib/load-env.ts';
import { toK6Env } from './load-spec.ts';

test('the harness writes LOAD_* variables the k6 script reads back unchanged', () => {
  const spec = {
    targets: ['http://a/x', 'http://b/y'],
    qps: 50,
    connections: 8,
    durationS: 30,
    timeoutS: 10,
  };
  assert.deepEqual(parseLoadEnv(toK6Env(spec)), {
    ...spec,
    flagHeader: '',
    records: true,
    newConnections: false,
    iterations: 0,
  });
  assert.equal(parseLoadEnv(toK6Env({ ...spec, flagHeader: 'x-flags' })).flagHeader, 'x-flags');
  assert.equal(parseLoadEnv(toK6Env({ ...spec, exactCalls: 1 })).iterations, 1);
  assert.equal(parseLoadEnv(toK6Env({ ...spec, records: false })).records, false);
});

test('the k6 script refuses a bad variable before sending anything', () => {
  const env = toK6Env({ targets: ['http://a'], qps: 0, connections: 1, durationS: 1, timeoutS: 1 });
  assert.throws(
    () => parseLoadEnv({ ...env, LOAD_CONNECTIONS: '0' }),
    /LOAD_CONNECTIONS to be a number >= 1, got "0"/,
  );
  assert.throws(() => parseLoadEnv({ ...env, LOAD_QPS: 'abc' }), /LOAD_QPS .* got "abc"/);
  assert.throws(() => parseLoadEnv({ ...env, LOAD_TARGETS: '' }), /LOAD_TARGETS to list at least one URL/);
});
