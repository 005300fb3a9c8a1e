// The columns the option table and the backends declare: the run's parameters by group (their
// entries in harness/options/), and what the backend said of itself (clusters/backend-columns.ts).
import { BACKEND_COLUMN_SPECS, backendColumns } from '../../../clusters/backend-columns.ts';
import type { ColumnGroup } from '../../options/column-binding.ts';
import { experimentOptions } from '../../options/experiment-options.ts';
import { parameterColumns } from '../../options/params.ts';
import type { TableOption } from '../../options/option.ts';
import type { Column, Section } from './column.ts';
import type { RowInput } from './row-input.ts';

/** An option's column note: its flag (arms say so), then the table's note. */
function optionNote(spec: TableOption): string {
  const flag = spec.short ? `${spec.short}/--${spec.key}` : `--${spec.key}`;
  return `${spec.param?.startsWith('arms.') ? 'arm ' : ''}\`${flag}\`${spec.column?.note ?? ''}`;
}

/** The option table, built once for every section. */
const TABLE = experimentOptions();

/** The option columns of one group, in table order. */
export function optionSection(group: ColumnGroup): Section<RowInput> {
  const table = TABLE;
  const columns = table.flatMap((spec): Column[] =>
    spec.column?.group === group
      ? [
          {
            name: spec.column.name,
            role: spec.column.role ?? 'parameter',
            note: optionNote(spec),
            ...(spec.column.added ? { added: spec.column.added } : {}),
          },
        ]
      : [],
  );
  return { columns, cells: ({ params }) => parameterColumns(table, params, group) };
}

/** The backend's columns but `backend`, which the option's column (lead) records already. */
function backendSection(): Section<RowInput> {
  const optionColumns = new Set(TABLE.flatMap((o) => (o.column ? [o.column.name] : [])));
  const specs = BACKEND_COLUMN_SPECS.filter((c) => !optionColumns.has(c.name));
  return {
    columns: specs.map((c) => ({
      name: c.name,
      role: c.role,
      note: c.note,
      ...(c.added ? { added: c.added } : {}),
    })),
    cells: ({ facts }) => {
      const cells = backendColumns(facts.backend);
      return Object.fromEntries(specs.map((c) => [c.name, cells[c.name] ?? '']));
    },
  };
}

export const BACKEND_SECTION = backendSection();
