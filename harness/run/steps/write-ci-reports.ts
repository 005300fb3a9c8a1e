import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appendJobSummary } from '../../record/ci-output.ts';
import { buildJUnit } from '../../record/junit.ts';
import type { JUnitCase } from '../../record/junit.ts';
import { formatMarkdownTable } from '../../record/markdown-table.ts';
import type { Judgement } from './judge-run.ts';
import type { RunPlan } from './run-context.ts';

/** A test case per threshold (--max-failed first); an aborted run is one failed case saying why. */
function runCases(plan: RunPlan, judged: Judgement): JUnitCase[] {
  const className = `ztunnel-harness.${plan.params.scenario}`;
  if (judged.verdict === 'aborted')
    return [{ className, name: 'run', outcome: 'fail', message: `aborted: ${judged.reason}` }];
  return judged.thresholds.map((r) => ({
    className,
    name: r.threshold.text,
    outcome: r.ok ? 'pass' : 'fail',
    message: `${r.threshold.metric} = ${String(r.actual)} (${r.threshold.text})`,
  }));
}

/**
 * junit.xml in the run folder (a test case per threshold, for CI test reporters), and under GitHub
 * Actions a section of the job summary: the verdict and each threshold with its value.
 */
export async function writeCiReports(plan: RunPlan, judged: Judgement): Promise<void> {
  await writeFile(
    join(plan.runDir, 'junit.xml'),
    buildJUnit(`ztunnel-harness ${plan.runId}`, runCases(plan, judged), new Date(plan.startedAtWallMs)),
  );
  await appendJobSummary(
    `### ${plan.params.scenario}: ${judged.verdict}\n\n` +
      `Run \`${plan.runId}\`, ${String(judged.failed)} failed, ${String(judged.bursts.length)} bursts.\n\n` +
      formatMarkdownTable(
        ['threshold', 'value', 'holds'],
        judged.thresholds.map((r) => [
          r.threshold.text,
          Number(r.actual.toPrecision(6)),
          r.ok ? 'yes' : '**no**',
        ]),
      ),
  );
}
