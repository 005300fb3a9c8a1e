import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { findK6 } from './find-k6.ts';
import { FORTIO } from './fortio.ts';
import { ensureGoTool } from '../../lib/install/index.ts';
import type { EnsureGoToolOptions } from '../../lib/install/index.ts';

export const GENERATOR_KINDS = ['fortio', 'k6'] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];
/** What a user asks for: one of the kinds, or auto (k6 when the user has one, else fortio). */
export type GeneratorChoice = GeneratorKind | 'auto';

/** The load generator a run uses, and why that one. */
export interface LoadGenerator {
  kind: GeneratorKind;
  path: string;
  version: string;
  /** One line: where it was found and why it was chosen. */
  why: string;
}

/**
 * The generator for `requested`: k6 only as the user installed it (PATH or K6_BINARY, never built
 * here: its module is under the AGPL); fortio, the documents' own tool, from the tools folder (built
 * with `go install` on first use). auto takes a fitting k6 when there is one, else fortio.
 */
export async function chooseGenerator(
  requested: GeneratorChoice,
  options: EnsureGoToolOptions = {},
): Promise<LoadGenerator> {
  const env = options.env ?? process.env;
  if (requested !== 'fortio') {
    const k6 = await findK6(env);
    if ('path' in k6)
      return {
        kind: 'k6',
        path: k6.path,
        version: k6.version,
        why: `k6 v${k6.version} from ${k6.source} (${k6.path})`,
      };
    if (requested === 'k6')
      throw new HarnessError(
        ErrorCode.ToolMissing,
        `--generator k6: ${k6.reason}. This project never builds or downloads k6: install it the usual way (https://grafana.com/docs/k6/latest/set-up/install-k6/) or name it with K6_BINARY, or use --generator fortio`,
      );
    const fortio = await ensureGoTool(FORTIO, options);
    return {
      kind: 'fortio',
      path: fortio.path,
      version: fortio.version,
      why: `fortio v${fortio.version} (${k6.reason})`,
    };
  }
  const fortio = await ensureGoTool(FORTIO, options);
  return {
    kind: 'fortio',
    path: fortio.path,
    version: fortio.version,
    why: `fortio v${fortio.version}, as asked`,
  };
}
