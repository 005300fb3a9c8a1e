const cell = (text: string | number): string => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A GitHub-flavoured Markdown table, columns padded so it reads in a terminal too. */
export function formatMarkdownTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [headers.map(cell), ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string =>
    `| ${widths.map((w, i) => (r[i] ?? '').padEnd(w)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return `${[line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n')}\n`;
}
