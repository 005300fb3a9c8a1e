// `--version` for every command: the harness's version (package.json) and the git commit it runs
// from, when it runs from a checkout. Answered while the arguments are parsed, before anything starts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import type { Flag } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { commanderOption } from './commander-option.ts';

/** `0.1.0 (git e22c86b)`, or `0.1.0` outside a git checkout (a copied tree, a container image). */
export function harnessVersion(root = PROJECT_ROOT): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const version = pkg.version ?? 'unknown';
  let sha = '';
  try {
    sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 3000,
    }).trim();
  } catch {
    // No git, or not a checkout: the version alone is still the answer (nothing to count or report).
  }
  return sha ? `${version} (git ${sha})` : version;
}

/** Every command's `-V, --version`: a switch, answered by the listener below. */
const VERSION: Flag<boolean> = {
  key: 'version',
  short: '-V',
  description: 'print the harness version and git commit, then exit',
};

/**
 * Adds `-V, --version` to `program`: prints `<name> <version>` and ends the parse with commander's
 * own exit-0 error, as commander's `.version()` does, but reads git only when asked.
 */
export function addVersionOption(program: Command): Command {
  program.addOption(commanderOption(VERSION));
  program.on('option:version', () => {
    const text = `${program.name()} ${harnessVersion()}\n`;
    const output = program.configureOutput();
    if (output.writeOut) output.writeOut(text);
    else process.stdout.write(text);
    throw new CommanderError(0, 'commander.version', text);
  });
  return program;
}

/**
 * The program of a command that takes no options or arguments (bench, kind-smoke): it answers
 * --help and --version and refuses anything else (exit 2) before the command starts.
 */
export function parseBareCommand(name: string, description: string, argv: readonly string[]): void {
  const program = addVersionOption(new Command(name).description(description))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(argv, { from: 'user' });
}
