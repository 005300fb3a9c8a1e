import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in harness/). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Provisioned tools (k6 builds and downloads); git-ignored. */
export const DEFAULT_TOOLS_DIR = join(PROJECT_ROOT, '.tools');
export const K6_SCRIPTS_DIR = join(PROJECT_ROOT, 'k6-scripts');
export const DEFAULT_RESULTS_DIR = join(PROJECT_ROOT, 'results');
