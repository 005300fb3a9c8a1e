import { summaryColumnRoles } from '../column-roles.ts';
import type { RunRow } from './read-runs.ts';

export interface Configuration {
  key: string;
  /** name=value of every parameter, in column order. */
  parameters: [string, string][];
}

/**
 * A row's configuration: its parameter columns (results/column-roles.ts; a column it does not
 * know is a parameter, so one added later splits configurations rather than being silently
 * ignored). A column added after the first schema is left out where it holds the value every older
 * row ran with, so the row keys as an older row without the column does.
 */
export function configurationOf(row: RunRow): Configuration {
  const roles = summaryColumnRoles();
  const parameters = Object.entries(row.values).filter(([name, value]) => {
    const spec = roles.get(name);
    if (!spec) return true;
    return spec.role === 'parameter' && spec.olderRowsRan !== value;
  });
  return { key: parameters.map(([k, v]) => `${k}=${v}`).join('\u0000'), parameters };
}

/** Rows grouped by configuration, in first-seen order. */
export function groupByConfiguration(
  rows: readonly RunRow[],
): Map<string, { configuration: Configuration; rows: RunRow[] }> {
  const groups = new Map<string, { configuration: Configuration; rows: RunRow[] }>();
  for (const row of rows) {
    const configuration = configurationOf(row);
    const group = groups.get(configuration.key) ?? { configuration, rows: [] };
    group.rows.push(row);
    groups.set(configuration.key, group);
  }
  return groups;
}

/**
 * What tells two configurations apart in a table: the scenario plus every parameter whose value
 * differs between configurations of that scenario (the rest is common and would be noise).
 */
export function labelConfigurations(configurations: readonly Configuration[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const c of configurations) {
    const scenario = c.parameters.find(([k]) => k === 'scenario')?.[1] ?? '?';
    const siblings = configurations.filter(
      (o) => o.parameters.find(([k]) => k === 'scenario')?.[1] === scenario,
    );
    const varying = c.parameters.filter(
      ([k, v]) => k !== 'scenario' && siblings.some((o) => o.parameters.find(([ok]) => ok === k)?.[1] !== v),
    );
    labels.set(c.key, [scenario, ...varying.map(([k, v]) => `${k}=${v}`)].join(' '));
  }
  return labels;
}
