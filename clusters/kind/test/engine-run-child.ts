// A run's process for engine-watcher.test.ts: starts "our" dockerd as a run does (fake docker and
// dockerd first on PATH, the layout in ENGINE_DIR), notes a kind cluster, prints the engine's owner,
// then (THEN) waits to be killed, keeps the engine and exits, or just exits.
import { join } from 'node:path';
import { ensureDockerEngine } from '../provision/docker-engine.ts';
import { engineLayout } from '../provision/engine-layout.ts';
import { createStepRunner } from '../../steps/step-runner.ts';

const dir = process.env['ENGINE_DIR'] ?? '';
const then = process.env['THEN'] ?? 'wait';
const layout = engineLayout(join(dir, 'tools'), dir);
const runner = createStepRunner({ logDir: join(dir, 'logs'), write: () => undefined });
const engine = await runner.step('engine', (step) =>
  ensureDockerEngine(step, {
    layout,
    env: process.env,
    keepAfterExit: process.env['KEEP_AFTER_EXIT'] === '1',
  }),
);
await engine.noteCluster({
  kindPath: join(dir, 'kind'),
  name: 'watched',
  kubeconfigPath: join(dir, 'kubeconfig'),
  network: 'ztunnel-harness-kind',
});
if (then === 'keep') await engine.keep();
process.stdout.write(`${engine.owner}\n`);
if (then === 'wait') setInterval(() => undefined, 1000);
