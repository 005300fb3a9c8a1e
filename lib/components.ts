import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The in-process components by where their code lives, each declared by the component itself:
 * the crash guard names the component an uncaught error's stack points into (harness/cli/
 * crash-guard.ts), and a component that moves or splits keeps its name with its code.
 */
const DECLARED = new Map<string, string>();

/**
 * `nameComponent(import.meta.url, 'CA (istiod)')`: in a folder's index.ts, every file of that
 * folder (and below) belongs to the component; with `'file'`, only the declaring file does. The
 * most specific declaration wins.
 */
export function nameComponent(moduleUrl: string, name: string, scope: 'folder' | 'file' = 'folder'): void {
  const file = fileURLToPath(moduleUrl);
  DECLARED.set(scope === 'folder' ? dirname(file) + sep : file, name);
}

/** The component `file` belongs to (an absolute path), if one declared it. */
export function componentAt(file: string): string | undefined {
  let best: [string, string] | undefined;
  for (const [where, name] of DECLARED)
    if (
      (file === where || (where.endsWith(sep) && file.startsWith(where))) &&
      where.length > (best?.[0].length ?? -1)
    )
      best = [where, name];
  return best?.[1];
}
