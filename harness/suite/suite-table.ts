/** One line of the suite table: the document's figure next to ours. */
export interface SuiteTableRow {
  experiment: string;
  configuration: string;
  repeats: number;
  document: string;
  ours: string;
  /** yes / no / - (not run) */
  shape: string;
  reproduce: string;
}

const cell = (text: string | number): string => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatSuiteMarkdown(rows: SuiteTableRow[]): string {
  const lines = [
    '| experiment | configuration | runs | document | ours | shape matches |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.experiment)} | ${cell(r.configuration)} | ${cell(r.repeats)} | ${cell(r.document)} | ${cell(r.ours)} | ${cell(r.shape)} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
