import { execa } from 'execa';
import { consentToHostChange, ErrorCode, HarnessError } from '../../lib/index.ts';

export async function onPath(name: string): Promise<string | undefined> {
  const r = await execa('sh', ['-c', `command -v ${name}`], { reject: false });
  return r.exitCode === 0 ? r.stdout.trim() : undefined;
}

/**
 * A program a test needs, from PATH, else (as root on a Debian-like machine) `apt-get install` of
 * its package, saying so; otherwise a clear error (exit 2) naming the package.
 */
export async function ensureDebianTool(options: {
  /** Names tried on PATH, in order; the first is what the package installs. */
  commands: readonly string[];
  packages: readonly string[];
  why: string;
  write?: (t: string) => void;
}): Promise<string> {
  for (const name of options.commands) {
    const path = await onPath(name);
    if (path) return path;
  }
  const [command = ''] = options.commands;
  const hasApt = (await onPath('apt-get')) !== undefined;
  if (process.getuid?.() !== 0 || !hasApt)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `${command} is needed ${options.why} and was not found; install the Debian package (apt-get install ${options.packages.join(' ')})`,
    );
  await consentToHostChange({
    action: `install Debian's ${options.packages.join(', ')} (apt-get update; apt-get install), ${options.why}`,
    rerun: 'npm run tools -- --yes',
  });
  options.write?.(
    `${command}: not found; installing the Debian package (apt-get install ${options.packages.join(' ')})\n`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await execa('apt-get', ['update', '-qq'], { env });
  await execa('apt-get', ['install', '-y', '-qq', ...options.packages], { env });
  const path = await onPath(command);
  if (!path)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `apt-get installed ${options.packages.join(' ')} but ${command} is not on PATH`,
    );
  return path;
}
