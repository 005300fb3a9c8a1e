import { Option } from 'commander';
import { flagsText } from '../options/option.ts';
import type { TableOption } from '../options/option.ts';

/** One entry of the option table as commander's option: its flags, help, parser and default. */
export function commanderOption(spec: TableOption): Option {
  const scope = spec.scenarios ? ` (only with --scenario ${spec.scenarios.join(' | ')})` : '';
  const option = new Option(flagsText(spec), `${spec.description}${scope}`);
  if (spec.parse) option.argParser(spec.parse);
  if (spec.default !== undefined) option.default(spec.default);
  return option;
}
