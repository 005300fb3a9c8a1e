import { readFile } from 'node:fs/promises';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/**
 * fortio's closing text as fortio prints it (its stderr, less the structured log lines and the
 * histogram's bucket rows): `Ended after`, `Aggregated Function Time`, its `# target` percentiles,
 * `Error cases`, `Sockets used`, each `Code`, `All done N calls (plus W warmup) ...`.
 */
export function fortioOwnSummary(stderr: string): string {
  const out: string[] = [];
  let inFunctionTime = false;
  for (const line of stderr.split('\n')) {
    if (line.startsWith('{')) continue;
    if (/^(Aggregated Function Time|Error cases)/.test(line)) {
      inFunctionTime = true;
      out.push(line);
    } else if (line.startsWith('# target')) {
      if (inFunctionTime) out.push(line);
    } else if (/^(Ended after|Sockets used|Code |All done)/.test(line)) {
      inFunctionTime = false;
      out.push(line);
    } else if (!line.startsWith('>') && !line.startsWith('# range')) {
      inFunctionTime = false;
    }
  }
  return out.join('\n');
}

/** What fortio's own JSON result (`-json`) says it did: its count excludes the warm-up calls. */
export interface FortioResultCounts {
  calls: number;
  retCodes: Record<string, number>;
}

export async function readFortioResult(path: string): Promise<FortioResultCounts> {
  try {
    const result = JSON.parse(await readFile(path, 'utf8')) as {
      DurationHistogram?: { Count?: number };
      RetCodes?: Record<string, number>;
    };
    return { calls: result.DurationHistogram?.Count ?? 0, retCodes: result.RetCodes ?? {} };
  } catch (err) {
    throw new HarnessError(ErrorCode.LoadFailed, `could not read fortio's result ${path}`, { cause: err });
  }
}
