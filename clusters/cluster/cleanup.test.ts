// `npm run cluster -- cleanup` against the API server double with a shared cluster's namespaces:
// only what is a run's, beyond doubt, and over is deleted, and only with --yes; a live run's and a
// look-alike survive; --run names one run the user knows is over.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { cleanupExistingCluster } from './cleanup.ts';
import type { CleanupFlags } from './cleanup.ts';
import { instantClock, removeDeletedNamespaces, startUserCluster } from './test/user-cluster.ts';

const OWNER = { 'app.kubernetes.io/managed-by': 'ztunnel-harness' };
// instantClock's wall time: 2026-11-27T00:00:00Z.
const PAST = '2026-11-26T23:59:00.000Z';
const AHEAD = '2026-11-27T00:04:00.000Z';
const EXPIRED = 'ztunnel-harness-20261126-235000-aaaa';
const LIVE = 'ztunnel-harness-20261126-235500-bbbb';
const TERMINATING = 'ztunnel-harness-20261126-234000-cccc';

async function sharedCluster(t: { after(fn: () => unknown): void }) {
  const { api, kubeconfig } = await startUserCluster(t);
  removeDeletedNamespaces(api);
  const run = (name: string, expires: string, extra: Record<string, unknown> = {}) => {
    api.put('namespaces', {
      metadata: {
        name,
        labels: { ...OWNER, 'ztunnel-harness/run': name },
        annotations: { 'ztunnel-harness/expires-at': expires },
      },
      ...extra,
    });
  };
  run(EXPIRED, PAST);
  run(LIVE, AHEAD);
  run(TERMINATING, AHEAD, { status: { phase: 'Terminating' } });
  // Labelled like ours, but not ours: no prefix; a run label that is not its name; no expiry.
  api.put('namespaces', {
    metadata: { name: 'team-a', labels: { ...OWNER, 'ztunnel-harness/run': 'team-a' } },
  });
  api.put('namespaces', {
    metadata: {
      name: 'ztunnel-harness-ci-shared',
      labels: { ...OWNER, 'ztunnel-harness/run': LIVE },
      annotations: { 'ztunnel-harness/expires-at': PAST },
    },
  });
  api.put('namespaces', {
    metadata: {
      name: 'ztunnel-harness-noexpiry',
      labels: { ...OWNER, 'ztunnel-harness/run': 'ztunnel-harness-noexpiry' },
    },
  });
  api.put('namespaces', { metadata: { name: 'default' } });
  const cleanup = async (flags: Partial<CleanupFlags>) => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        out += chunk.toString();
        done();
      },
    });
    const code = await cleanupExistingCluster({ kubeconfig, clock: instantClock(), ...flags }, sink);
    return { code, out };
  };
  const names = () =>
    api
      .list('namespaces')
      .map((n) => n.metadata?.name ?? '')
      .sort();
  const deletes = () => api.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
  return { cleanup, names, deletes };
}

test('without --yes: every candidate listed with its verdict and expiry, nothing deleted', async (t) => {
  const { cleanup, deletes } = await sharedCluster(t);
  const { code, out } = await cleanup({});
  assert.equal(code, 0, out);
  assert.match(
    out,
    /6 namespace\(s\) labelled app\.kubernetes\.io\/managed-by=ztunnel-harness, 2 left by a run that is over/,
  );
  assert.match(out, new RegExp(`${EXPIRED} .*: left: its lease expired at ${PAST}`));
  assert.match(out, new RegExp(`${TERMINATING} .*: left: terminating already`));
  assert.match(out, new RegExp(`${LIVE} .*: kept: its run is live \\(lease renewed until ${AHEAD}\\)`));
  assert.match(out, /team-a .*: kept: not a run's namespace \(its name lacks the prefix/);
  assert.match(
    out,
    /ztunnel-harness-ci-shared .*: kept: not a run's namespace \(its label ztunnel-harness\/run is not its own name\)/,
  );
  assert.match(
    out,
    /ztunnel-harness-noexpiry .*: kept: not a run's namespace \(it lacks a valid ztunnel-harness\/expires-at/,
  );
  assert.match(out, /nothing deleted; pass --yes to delete the 2 left/);
  assert.deepEqual(deletes(), []);
  // --dry-run (scripts that pass it) lists only, even with --yes.
  await cleanup({ yes: true, dryRun: true });
  assert.deepEqual(deletes(), []);
});

test("--yes: the expired and the terminating runs' namespaces deleted; a live run's and the look-alikes survive", async (t) => {
  const { cleanup, names, deletes } = await sharedCluster(t);
  const { code, out } = await cleanup({ yes: true });
  assert.equal(code, 0, out);
  assert.deepEqual(deletes(), [`/api/v1/namespaces/${EXPIRED}`, `/api/v1/namespaces/${TERMINATING}`]);
  assert.deepEqual(
    names(),
    ['default', 'team-a', LIVE, 'ztunnel-harness-ci-shared', 'ztunnel-harness-noexpiry'].sort(),
  );
  assert.match(out, new RegExp(`${EXPIRED}: deleted`));
});

test('--run: that run deleted though its lease is ahead (the user says it is over); a name not found is bad input', async (t) => {
  const { cleanup, names, deletes } = await sharedCluster(t);
  const { code, out } = await cleanup({ yes: true, run: LIVE });
  assert.equal(code, 0, out);
  assert.match(out, new RegExp(`${LIVE} .*: left: named by --run \\(lease until ${AHEAD}\\)`));
  assert.deepEqual(deletes(), [`/api/v1/namespaces/${LIVE}`]);
  assert.ok(!names().includes(LIVE));
  await assert.rejects(cleanup({ yes: true, run: 'team-b' }), (err: unknown) => {
    assert.ok(isHarnessError(err, ErrorCode.BadInput));
    assert.match(err.message, /--run team-b: no namespace of that name with the label/);
    return true;
  });
  // A look-alike named by --run is still not ours.
  await cleanup({ yes: true, run: 'team-a' });
  assert.ok(names().includes('team-a'));
});
