/**
 * A run folder's name: the UTC start to the second, then what ran (`20261123T101920Z-ztunnel-upgrade`),
 * so folders sort by time and say what they hold. Runs, suites and the standalone checks share it.
 */
export function createRunId(what: string, wallMs: number): string {
  const stamp = new Date(wallMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${what}`;
}
