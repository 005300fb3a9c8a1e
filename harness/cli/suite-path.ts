import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { badInput } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';

/** Where named suites live: `--suite seeds` is suites/seeds.yaml. */
export const SUITES_DIR = join(PROJECT_ROOT, 'suites');

/** The suite file `--suite` names: a name under suites/ or a path to a YAML (or JSON) file. */
export function suitePath(nameOrPath: string): string {
  const named = join(SUITES_DIR, `${nameOrPath}.yaml`);
  if (/^[a-z0-9-]+$/.test(nameOrPath) && existsSync(named)) return named;
  if (/\.(ya?ml|json)$/.test(nameOrPath) && existsSync(nameOrPath)) return nameOrPath;
  throw badInput(
    '--suite',
    'a suite name under suites/ (seeds) or the path of a YAML suite file',
    nameOrPath,
  );
}
