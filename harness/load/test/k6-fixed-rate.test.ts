// Real k6 against a real local HTTP server: the counts the harness reads back from k6 must equal, per
// status, what the server itself answered, and the refused port must show up as k6 error 1212.
// k6 is the user's own (PATH or K6_BINARY): this project never builds or downloads it, so without one
// the test is skipped, naming what it needs.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chooseGenerator } from '../../provision/index.ts';
import { GENERATORS } from './generators.ts';
import { startStatusServer } from './status-server.ts';
import { runLoad } from '../run-load.ts';

// Nothing listens on this address (127.0.0.0/8 is all loopback): connecting is refused at once.
const REFUSED_URL = 'http://127.211.0.1:9/';

const skip = GENERATORS.find((g) => g.kind === 'k6')?.skip ?? false;

test('fixed-rate k6 load: exact counts by status and k6 error code', { timeout: 60_000, skip }, async (t) => {
  const k6 = await chooseGenerator('k6');

  const { base, answered } = await startStatusServer(t);

  const workDir = await mkdtemp(join(tmpdir(), 'k6-fixed-rate-'));
  t.after(() => rm(workDir, { recursive: true, force: true }));

  const qps = 200;
  const durationS = 3;
  // A stray K6_* variable must not change the run: k6 would otherwise write this file and run 1 VU.
  const strayOut = join(workDir, 'stray.json');
  process.env['K6_OUT'] = `json=${strayOut}`;
  process.env['K6_VUS'] = '1';
  t.after(() => {
    delete process.env['K6_OUT'];
    delete process.env['K6_VUS'];
  });
  const result = await runLoad({
    generator: k6,
    workDir,
    spec: {
      // Taken in turn by iteration number: a quarter each.
      targets: [`${base}/status/200`, `${base}/status/418`, `${base}/status/503`, REFUSED_URL],
      qps,
      connections: 20,
      durationS,
      timeoutS: 2,
      // An output asked for explicitly (--k6-out) does reach k6, relative to its work folder.
      outputs: ['json=explicit.json'],
    },
  });

  // k6 starts rate x duration iterations, sometimes one more at the closing instant (seen: 601).
  const n = result.summary.iterations ?? NaN;
  assert.ok(n === qps * durationS || n === qps * durationS + 1, `k6 started ${String(n)} iterations`);
  assert.equal(result.summary.droppedIterations, 0, 'the generator kept up with the fixed rate');
  assert.equal(existsSync(strayOut), false, 'K6_OUT from the environment did not reach k6');
  assert.ok(existsSync(join(workDir, 'explicit.json')), '--out json written in the work folder');
  assert.equal(result.counts.total, n, 'one record per request');
  // Iteration i went to target i % 4.
  const perTarget = [0, 1, 2, 3].map((k) => Math.floor(n / 4) + (k < n % 4 ? 1 : 0));
  const [to200, to418, to503, toRefused] = perTarget;
  assert.deepEqual(
    Object.fromEntries(answered),
    { 200: to200, 418: to418, 503: to503 },
    'the server answered each status for its share of the iterations',
  );
  assert.deepEqual(Object.fromEntries(result.counts.byStatus), {
    0: toRefused,
    200: answered.get(200),
    418: answered.get(418),
    503: answered.get(503),
  });
  // k6 gives HTTP errors code 1000+status and a refused dial 1212.
  assert.deepEqual(Object.fromEntries(result.counts.byErrorCode), {
    0: to200,
    1212: toRefused,
    1418: to418,
    1503: to503,
  });
  // A fixed rate over 3 s: the requests span about 3 s, not a burst.
  const spanMs = result.counts.lastEndWallMs - result.counts.firstStartWallMs;
  assert.ok(spanMs > 2800 && spanMs < 4000, `requests spanned ${String(spanMs)} ms`);
});
