import { formatMarkdownTable } from '../../record/markdown-table.ts';

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

export function formatSuiteMarkdown(rows: SuiteTableRow[]): string {
  return formatMarkdownTable(
    ['experiment', 'configuration', 'runs', 'document', 'ours', 'shape matches'],
    rows.map((r) => [r.experiment, r.configuration, r.repeats, r.document, r.ours, r.shape]),
  );
}
