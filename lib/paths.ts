import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file lives in lib/). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Provisioned tools (Envoy, go-httpbin, k6 builds and downloads); git-ignored. */
export const DEFAULT_TOOLS_DIR = join(PROJECT_ROOT, '.tools');
