// `npm run ztunnel-conformance -- --ztunnel-binary PATH --ztunnel-test-root DIR`: the same drain
// probed on our TypeScript ztunnel and on istio/ztunnel's binary (brought by the user), side by side.
// Exit 0 when every row matches, 1 when our model differs, 2 when the inputs or this machine cannot
// run it (root, network namespaces, the binary and its test root).
import { Command } from 'commander';
import { badInput, ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import type { ConnectObservation } from '../campaigns/conformance/connect-probe.ts';
import { probeConnects } from '../campaigns/conformance/connect-probe.ts';
import {
  compareConnects,
  compareDrains,
  formatConformance,
} from '../campaigns/conformance/conformance-rows.ts';
import { probeDrain } from '../campaigns/conformance/drain-probe.ts';
import type { DrainObservation, DrainTarget } from '../campaigns/conformance/drain-probe.ts';
import { startModelTarget } from '../campaigns/conformance/model-target.ts';
import { realZtunnelHere, startRealTarget } from '../campaigns/conformance/real-target.ts';
import { commanderOption } from '../cli/commander-option.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';

function deadlineParser(raw: string): number {
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms < 1000 || ms > 60_000)
    throw badInput('--deadline-ms', 'an integer from 1000 to 60000 (ms)', raw);
  return ms;
}

// Not the experiment's --ztunnel-binary (its help and checks are for --ztunnel-impl): the probe's
// binary, $ZTUNNEL_BINARY when absent.
const ZTUNNEL_BINARY: Flag<string> = {
  key: 'ztunnel-binary',
  arg: '<path>',
  description: 'istio/ztunnel built with --features testing (default: $ZTUNNEL_BINARY)',
};
const ZTUNNEL_TEST_ROOT: Flag<string> = {
  key: 'ztunnel-test-root',
  arg: '<dir>',
  description: "its repository's src/tls folder (default: $ZTUNNEL_TEST_ROOT)",
};
const DEADLINE_MS: Flag<number> = {
  key: 'deadline-ms',
  arg: '<ms>',
  description: 'CONNECTION_TERMINATION_DEADLINE for both',
  parse: deadlineParser,
  default: 3000,
};

async function observe(
  target: DrainTarget & { close(): Promise<void> },
): Promise<{ connects: ConnectObservation; drain: DrainObservation }> {
  try {
    const connects = await probeConnects(target);
    return { connects, drain: await probeDrain(target) };
  } finally {
    await target.close();
  }
}

runMain(async () => {
  const program = addVersionOption(
    new Command('ztunnel-conformance').description(
      "Probe one pod's ztunnel drain on ours and on istio/ztunnel's binary, side by side",
    ),
  )
    .addOption(commanderOption(ZTUNNEL_BINARY))
    .addOption(commanderOption(ZTUNNEL_TEST_ROOT))
    .addOption(commanderOption(DEADLINE_MS))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const opts = program.opts<{ ztunnelBinary?: string; ztunnelTestRoot?: string; deadlineMs: number }>();
  const real = await realZtunnelHere({
    ZTUNNEL_BINARY: opts.ztunnelBinary ?? process.env['ZTUNNEL_BINARY'],
    ZTUNNEL_TEST_ROOT: opts.ztunnelTestRoot ?? process.env['ZTUNNEL_TEST_ROOT'],
  });
  if (typeof real === 'string') throw new HarnessError(ErrorCode.BadInput, `ztunnel-conformance: ${real}`);
  process.stderr.write('probing our ztunnel (in this process, loopback) ...\n');
  const ours = await observe(await startModelTarget({ podNet: 104, deadlineMs: opts.deadlineMs }));
  process.stderr.write(`probing ${real.binary} (dedicated mode, its own network namespace) ...\n`);
  const upstream = await observe(await startRealTarget({ real, deadlineMs: opts.deadlineMs }));
  const sections = [
    {
      title: "CONNECTs to one pod's ztunnel, as a rollout makes them",
      heading: 'CONNECT',
      rows: compareConnects(ours.connects, upstream.connects),
    },
    {
      title: `drain of that ztunnel, deadline ${String(opts.deadlineMs)} ms: two HBONE tunnels, one idle, one with a request that outlasts the deadline`,
      heading: 'SIGTERM, then',
      rows: compareDrains(ours.drain, upstream.drain),
    },
  ];
  process.stdout.write(formatConformance(sections));
  return sections.every((section) => section.rows.every((r) => r.same)) ? 0 : 1;
});
