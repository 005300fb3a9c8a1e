import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { SuiteTableRow } from './suite-table.ts';
import { htmlTable, page } from '../../record/report/report-html.ts';

/** One suite entry's runs: their folders hold timeline.svg and report.html. */
export interface SuiteSection {
  row: SuiteTableRow;
  runDirs: string[];
}

/** suite.html: the comparison table, then each configuration's timeline plots inline with links. */
export async function writeSuiteReport(
  suiteDir: string,
  title: string,
  sections: SuiteSection[],
): Promise<string> {
  const parts = [
    `<h1>${title}</h1>`,
    htmlTable(
      sections.map((s) => ({ ...s.row })),
      ['experiment', 'configuration', 'repeats', 'document', 'ours', 'shape'],
    ),
  ];
  for (const s of sections) {
    parts.push(
      `<h2>${s.row.experiment}: ${s.row.configuration}</h2>`,
      `<p><code>${s.row.reproduce}</code></p>`,
    );
    for (const dir of s.runDirs) {
      const svg = join(dir, 'timeline.svg');
      if (existsSync(svg)) parts.push(`<div class="plot">${await readFile(svg, 'utf8')}</div>`);
      parts.push(`<p><a href="${relative(suiteDir, join(dir, 'report.html'))}">run report</a></p>`);
    }
  }
  const path = join(suiteDir, 'suite.html');
  await writeFile(path, page(title, parts.join('\n')));
  return path;
}
