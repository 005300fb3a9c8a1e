import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** First executable named `name` on `env.PATH` (like `command -v`), without running a shell. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  const names = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of dirs) {
    for (const candidate of names.map((n) => join(dir, n))) {
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    // Not there or not executable: both just mean "not this one".
    return false;
  }
}
