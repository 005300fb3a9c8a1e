// `npm run kind-smoke`: the kind backend on a real cluster (needs Docker and kind; the nightly's kind
// job runs it). Creates the cluster, builds and loads the images, applies httpbin outside the mesh,
// restarts it like kubectl and waits by kubectl's predicates, prints what the watches saw, deletes
// the cluster. up() also brings istiod up. No load runs here: `npm run experiment -- --backend kind
// --scenario workload-rollout` is the experiment.
import { createKindBackend } from '../../clusters/kind/index.ts';
import { buildHttpbin } from '../../clusters/manifests/index.ts';
import { createSystemClock } from '../../lib/index.ts';
import { runMain } from '../cli/run-main.ts';
import { parseBareCommand } from '../cli/version.ts';
import { PROJECT_ROOT } from '../paths.ts';

runMain(async (signal) => {
  parseBareCommand(
    'kind-smoke',
    'The kind backend on a real cluster (needs Docker and kind): creates the cluster, loads the images, rolls httpbin out, prints what the watches saw, deletes the cluster (several minutes; takes no options)',
    process.argv.slice(2),
  );
  const clock = createSystemClock();
  const backend = createKindBackend({ clock, projectRoot: PROJECT_ROOT, name: 'ztunnel-harness-smoke' });
  const say = (text: string): void => {
    process.stdout.write(`[${(clock.now() / 1000).toFixed(1)} s] ${text}\n`);
  };
  try {
    say('creating the kind cluster, building and loading images (several minutes)');
    await backend.preflight();
    await backend.up(signal);
    say(`up: ${JSON.stringify(backend.describe())}`);
    await backend.apply(buildHttpbin({ replicas: 3, mesh: 'off' }));
    await backend.waitForReady({ timeoutMs: 300_000, signal });
    say(`ready: ${String(backend.addresses().pods.length)} pods`);
    const httpbin = { kind: 'Deployment', namespace: 'default', name: 'httpbin' } as const;
    await backend.rolloutRestart(httpbin);
    const rollout = await backend.waitForRollout(httpbin, {
      timeoutMs: 300_000,
      untilOldPodsGone: true,
      signal,
    });
    say(`rollout: ${JSON.stringify(rollout)}`);
    for (const e of backend.events())
      process.stdout.write(`${(e.atMs / 1000).toFixed(3)} ${e.kind} ${e.object} ${e.detail ?? ''}\n`);
    return 0;
  } finally {
    await backend.close();
  }
});
