// `npm run kind-engine -- start|stop|status`: our own Docker daemon for the kind backend (the one a
// run starts when no engine answers, clusters/kind/provision/docker-engine.ts), kept running between
// runs with `start` (a run then uses it and leaves it running) and stopped on request with `stop`.
// A daemon the user runs is never touched.
import { join } from 'node:path';
import { Command, Argument } from 'commander';
import { DEFAULT_TOOLS_DIR, grantHostChanges } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import {
  engineVersion,
  ensureDockerEngine,
  stopDaemon,
} from '../../clusters/kind/provision/docker-engine.ts';
import { engineLayout } from '../../clusters/kind/provision/engine-layout.ts';
import { createStepRunner } from '../../clusters/steps/step-runner.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';

const YES: Flag<boolean> = {
  key: 'yes',
  description: 'install Docker and start the daemon without asking (each is still said)',
};

runMain(async (signal) => {
  const program = addVersionOption(new Command('kind-engine'))
    .description("start, stop or show our own Docker daemon for the kind backend (never the user's)")
    .addArgument(new Argument('<action>').choices(['start', 'stop', 'status']))
    .addOption(commanderOption(YES))
    .exitOverride();
  program.parse(process.argv);
  if (program.opts<{ yes?: boolean }>().yes) grantHostChanges('--yes');
  const [action] = program.args;
  const layout = engineLayout();
  const say = (t: string): void => {
    process.stdout.write(`${t}\n`);
  };
  if (action === 'status') {
    const version = await engineVersion({ DOCKER_HOST: layout.dockerHost });
    say(
      version
        ? `running: server ${version}, DOCKER_HOST=${layout.dockerHost}`
        : `not running (${layout.dockerHost})`,
    );
    return 0;
  }
  if (action === 'stop') {
    await stopDaemon(layout);
    say(`stopped (if it ran): ${layout.dockerHost}`);
    return 0;
  }
  const runner = createStepRunner({
    logDir: join(DEFAULT_TOOLS_DIR, 'kind', 'logs'),
    write: (t) => {
      process.stdout.write(t);
    },
    signal,
  });
  // Started and left running: `npm run kind-engine -- stop` stops it.
  const engine = await runner.step('engine', (step) => ensureDockerEngine(step, { keepAfterExit: true }));
  say(
    engine.owner === 'user'
      ? "the user's engine answers; nothing started"
      : `ours: DOCKER_HOST=${layout.dockerHost}`,
  );
  return 0;
});
