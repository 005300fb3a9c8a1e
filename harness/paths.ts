import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/paths.ts';

// The repository root and the tools folder live in lib/ (a backend needs them too); the harness's own
// folders are here.
export { DEFAULT_TOOLS_DIR, PROJECT_ROOT } from '../lib/paths.ts';
export const K6_SCRIPTS_DIR = join(PROJECT_ROOT, 'k6-scripts');
export const DEFAULT_RESULTS_DIR = join(PROJECT_ROOT, 'results');
