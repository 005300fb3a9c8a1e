// `npm run experiment -- <command> [options]`: what the first word selects. `run` (the default: a
// command line that starts with an option runs one experiment) and `suite` take experiments;
// `calibrate` and `load-smoke` check the harness's own load path without a cluster. Command lines
// from before the commands keep working: `--suite X` is `suite X`, and `--scenario calibrate`,
// `--scenario load-smoke` and `--scenario drain-strategies` (the seed suite's E5 entries) are
// translated with a note naming the new form.
import { badInput } from '../../lib/index.ts';

export const COMMANDS = {
  run: 'one experiment (the default): a cluster scenario, its load and its fault',
  suite: 'suite <name|file>: every entry of a suite (seeds: suites/seeds.yaml), with its comparison table',
  calibrate: "the classifier against a fault-injecting httpbin, without a cluster: every outcome's count",
  'load-smoke': 'the load generator against a local httpbin, without a cluster',
} as const;
export type CommandName = keyof typeof COMMANDS;

/** Old `--scenario` values that were commands, and the command line that replaces each. */
const FORMER_SCENARIOS: Readonly<Record<string, string[]>> = {
  calibrate: ['calibrate'],
  'load-smoke': ['load-smoke'],
  'drain-strategies': ['suite', 'seeds', '--only', 'E5'],
};

function isCommand(word: string | undefined): word is CommandName {
  return word !== undefined && Object.hasOwn(COMMANDS, word);
}

/** Where `--scenario`'s value is in argv (`--scenario X` or `--scenario=X`). */
function scenarioAt(argv: readonly string[]): { index: number; width: number; value: string } | undefined {
  for (const [i, arg] of argv.entries()) {
    if (arg === '--scenario') return { index: i, width: 2, value: argv[i + 1] ?? '' };
    if (arg.startsWith('--scenario=')) return { index: i, width: 1, value: arg.slice('--scenario='.length) };
  }
  return undefined;
}

/**
 * The command and the options it gets (`suite X` as `--suite X`, which the option table checks), a
 * former `--scenario` command translated, with the note to print.
 */
export function splitCommand(argv: readonly string[]): {
  command: CommandName;
  argv: string[];
  note?: string;
} {
  const [first, ...rest] = argv;
  if (first === 'suite') {
    const [name, ...options] = rest;
    if (name === undefined || name.startsWith('-'))
      throw badInput(
        'suite',
        'a suite name (seeds) or a suite file',
        name ?? '',
        'e.g. npm run experiment -- suite seeds',
      );
    return { command: 'suite', argv: ['--suite', name, ...options] };
  }
  if (isCommand(first)) return { command: first, argv: rest };
  if (first !== undefined && !first.startsWith('-'))
    throw badInput(
      'the command',
      `one of ${Object.keys(COMMANDS).join(', ')}, or an option (run is the default)`,
      first,
      'npm run experiment -- --help',
    );
  const scenario = scenarioAt(argv);
  const replacement =
    scenario && Object.hasOwn(FORMER_SCENARIOS, scenario.value)
      ? FORMER_SCENARIOS[scenario.value]
      : undefined;
  if (scenario && replacement) {
    const others = [...argv.slice(0, scenario.index), ...argv.slice(scenario.index + scenario.width)];
    const note = `note: --scenario ${scenario.value} is now \`npm run experiment -- ${replacement.join(' ')}\`\n`;
    return { ...splitCommand([...replacement, ...others]), note };
  }
  if (argv.some((a) => a === '--suite' || a.startsWith('--suite=')))
    return { command: 'suite', argv: [...argv] };
  return { command: 'run', argv: [...argv] };
}

/** The commands, for --help. */
export function commandsHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'Commands (the first word; run is the default):',
    ...Object.entries(COMMANDS).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
  ].join('\n');
}
