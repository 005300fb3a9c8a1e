import { execa } from 'execa';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** Names Debian and others give the headless-capable browser, in the order tried. */
const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome'];

async function onPath(name: string): Promise<string | undefined> {
  const r = await execa('sh', ['-c', `command -v ${name}`], { reject: false });
  return r.exitCode === 0 ? r.stdout.trim() : undefined;
}

/**
 * The browser the report's screenshot test renders report.html in: $CHROMIUM, else one on PATH,
 * else (as root on a Debian-like machine) `apt-get install chromium`, saying so; otherwise a clear
 * error (exit 2). Building reports never needs it: the plot is drawn to SVG in Node.
 */
export async function ensureChromium(write: (t: string) => void = () => undefined): Promise<string> {
  const explicit = process.env['CHROMIUM'];
  if (explicit) return explicit;
  for (const name of CANDIDATES) {
    const path = await onPath(name);
    if (path) return path;
  }
  const hasApt = (await onPath('apt-get')) !== undefined;
  if (process.getuid?.() !== 0 || !hasApt)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      'Chromium is needed to render report.html in the screenshot test and was not found; install the Debian package (apt-get install chromium) or set CHROMIUM to a Chrome/Chromium binary',
    );
  write('chromium: not found; installing the Debian package (apt-get install chromium)\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await execa('apt-get', ['update', '-qq'], { env });
  await execa('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-dejavu-core'], { env });
  const path = await onPath('chromium');
  if (!path)
    throw new HarnessError(ErrorCode.ToolMissing, 'apt-get installed chromium but it is not on PATH');
  return path;
}
