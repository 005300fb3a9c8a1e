import { ensureDebianTool } from './ensure-debian-tool.ts';

/**
 * The browser the report's screenshot test renders report.html in: $CHROMIUM, else one on PATH,
 * else (as root on a Debian-like machine) `apt-get install chromium`, saying so; otherwise a clear
 * error (exit 2). Building reports never needs it: the plot is drawn to SVG in Node.
 */
export async function ensureChromium(write: (t: string) => void = () => undefined): Promise<string> {
  const explicit = process.env['CHROMIUM'];
  if (explicit) return explicit;
  return ensureDebianTool({
    commands: ['chromium', 'chromium-browser', 'google-chrome'],
    packages: ['chromium', 'fonts-dejavu-core'],
    why: 'to render report.html in the screenshot test (or set CHROMIUM to a Chrome/Chromium binary)',
    write,
  });
}

/** xmllint (libxml2-utils), which the JUnit schema test validates our XML with. */
export function ensureXmllint(write: (t: string) => void = () => undefined): Promise<string> {
  return ensureDebianTool({
    commands: ['xmllint'],
    packages: ['libxml2-utils'],
    why: "to validate the JUnit XML against Jenkins' schema in the tests",
    write,
  });
}
