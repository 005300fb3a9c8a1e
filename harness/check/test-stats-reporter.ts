// A node:test reporter (--test-reporter=<this file>) that writes what the check's summary needs as
// one JSON object: each file's test time, the skipped tests with their reasons, and the counts. The
// spec reporter prints the tests themselves beside it.
import { relative } from 'node:path';
import type { TestEvent } from 'node:test/reporters';

export interface TierStats {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  /** Seconds of test time per file (its top-level tests' durations added up). */
  fileSeconds: Record<string, number>;
  skips: { file: string; name: string; reason: string }[];
}

const fileOf = (file: string | undefined): string => (file ? relative(process.cwd(), file) : '(unknown)');

export default async function* statsReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const stats: TierStats = { passed: 0, failed: 0, skipped: 0, todo: 0, fileSeconds: {}, skips: [] };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    const file = fileOf(data.file);
    if (data.nesting === 0)
      stats.fileSeconds[file] = (stats.fileSeconds[file] ?? 0) + data.details.duration_ms / 1000;
    // Suites are counted by their tests, as node:test's own summary does.
    if (data.details.type === 'suite') continue;
    if (data.skip !== undefined && data.skip !== false) {
      stats.skipped += 1;
      stats.skips.push({
        file,
        name: data.name,
        reason: data.skip === true ? '(no reason given)' : data.skip,
      });
    } else if (data.todo !== undefined && data.todo !== false) stats.todo += 1;
    else if (event.type === 'test:pass') stats.passed += 1;
    else stats.failed += 1;
  }
  yield `${JSON.stringify(stats)}\n`;
}
