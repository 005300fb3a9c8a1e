// Consent before the project changes the host itself: a system package installed, or a daemon started
// that rewrites the host's networking (our dockerd). The change is said first; under CI=true or after
// --yes (grantHostChanges) it goes ahead; on a terminal the user is asked; with no one to ask it is
// refused (exit 2) with the command that would go ahead.
import { createInterface } from 'node:readline/promises';
import { ErrorCode, HarnessError } from './errors.ts';

export interface HostChange {
  /** What will be done, one line: `install Debian's docker.io, containerd, runc (apt-get)`. */
  action: string;
  /** What that changes on the host beyond the files installed, each a line. */
  effects?: readonly string[];
  /** The command to run to say yes without a terminal (`npm run tools -- --kind --yes`). */
  rerun: string;
}

export interface ConsentIo {
  write: (text: string) => void;
  /** Whether someone can be asked (stdin is a terminal). */
  interactive: boolean;
  ask: (question: string) => Promise<string>;
}

let granted: string | undefined;

/** --yes: every host change of this process goes ahead, each still said. */
export function grantHostChanges(why = '--yes'): void {
  granted = why;
}

const systemIo = (): ConsentIo => ({
  write: (t) => process.stderr.write(t),
  interactive: process.stdin.isTTY,
  ask: async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
});

export async function consentToHostChange(
  change: HostChange,
  io: ConsentIo = systemIo(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const effects = (change.effects ?? []).map((e) => `\n  - ${e}`).join('');
  io.write(`this host will change: ${change.action}${effects}\n`);
  const why = granted ?? (env['CI'] === 'true' ? 'CI=true' : undefined);
  if (why) {
    io.write(`  going ahead (${why})\n`);
    return;
  }
  if (!io.interactive)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `not changing the host without consent (${change.action}), and there is no terminal to ask: run \`${change.rerun}\` to go ahead, or make the change yourself`,
    );
  const answer = (await io.ask('  go ahead? [y/N] ')).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes')
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `declined: ${change.action}; run \`${change.rerun}\` to go ahead, or make the change yourself`,
    );
}
