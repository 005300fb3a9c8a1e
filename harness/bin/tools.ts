// `npm run tools`: provisions the pinned k6 into .tools/ (or finds a fitting one on PATH) and says
// where it is. Everything that needs k6 also does this lazily on first use.
import { Command } from 'commander';
import { createSystemClock } from '../../lib/index.ts';
import { runMain } from '../cli/run-main.ts';
import { ensureChromium, ensureK6, ensureXmllint } from '../tools/index.ts';

runMain(async (signal) => {
  new Command('tools')
    .description(
      'Provision k6 (PATH if it fits, else go build, else the release download) into .tools/, and Chromium for the screenshot test.',
    )
    .exitOverride()
    .parse(process.argv);
  const k6 = await ensureK6({ signal, clock: createSystemClock() });
  process.stdout.write(
    `k6 v${k6.version} at ${k6.path} (${k6.source === 'tools' ? 'already provisioned' : k6.source})\n`,
  );
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  process.stdout.write(`chromium (for the report's screenshot test) at ${await ensureChromium(write)}\n`);
  process.stdout.write(`xmllint (for the JUnit schema test) at ${await ensureXmllint(write)}\n`);
  return 0;
});
