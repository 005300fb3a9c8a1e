import { Option } from 'commander';
import type { Flag } from '../../lib/index.ts';
import { flagsText } from '../options/option.ts';

/**
 * What commander's option is made from: a flag (lib/flag.ts), every command's options declared in
 * that form, an experiment option's entry (TableOption) among them; its `scenarios` (FlagSpec) scope
 * the help. `parse: undefined`: the command reads the raw string and checks it itself.
 */
export type CommanderFlag<V> = Omit<Flag<V>, 'parse'> & {
  parse?: Flag<V>['parse'] | undefined;
  scenarios?: readonly string[] | undefined;
};

/** A flag as commander's option: its flags, help, parser and default. */
export function commanderOption<V>(flag: CommanderFlag<V>): Option {
  const scope = flag.scenarios ? ` (only with --scenario ${flag.scenarios.join(' | ')})` : '';
  const option = new Option(flagsText(flag), `${flag.description}${scope}`);
  if (flag.parse) option.argParser(flag.parse);
  if (flag.default !== undefined) option.default(flag.default);
  return option;
}
