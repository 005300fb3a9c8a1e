// Experiments as files: `--config experiment.yaml` (YAML or JSON; keys are the long flag names) and
// `--from <run dir>` (the experiment.yaml every run folder holds). A file becomes the command-line
// arguments it stands for, placed before the user's own: flags on the command line override the
// file. The file is checked twice: its shape by a schema made from the option table (zod: unknown
// keys, wrong types), then each value by the same parsers as the flags.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { badInput, isHarnessError } from '../../lib/index.ts';
import { buildExperimentProgram } from './experiment-program.ts';
import { argsFor, optionTable } from '../options/option-table.ts';
import type { OptionEntry } from '../options/option-table.ts';
import { RUN_CONFIG_FILE } from '../config/run-config.ts';

const asJson = (value: unknown): { toString(): string } => ({
  toString: () => JSON.stringify(value ?? null),
});

function schemaOf(table: readonly OptionEntry[]) {
  return z.strictObject(
    Object.fromEntries(
      table.map((o) => [
        o.key,
        (o.kind === 'switch'
          ? z.boolean()
          : o.kind === 'timing'
            ? z.record(z.string(), z.number())
            : o.kind === 'list'
              ? z.array(z.string())
              : z.union([z.string(), z.number()])
        ).optional(),
      ]),
    ),
  );
}

function describeIssue(issue: z.core.$ZodIssue, table: readonly OptionEntry[]): [string, string] {
  if (issue.code === 'unrecognized_keys')
    return [
      `key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
      `an option name (${table.map((o) => o.key).join(', ')})`,
    ];
  const key = issue.path.join('.');
  const entry = table.find((o) => o.key === issue.path[0]);
  const expected =
    entry?.kind === 'switch'
      ? 'true or false'
      : entry?.kind === 'timing'
        ? 'a map of timing names to milliseconds'
        : entry?.kind === 'list'
          ? 'a list of strings'
          : issue.path.length === 0
            ? 'a map of option names to values'
            : 'a number or a string';
  return [key ? `key ${key}` : 'the file', expected];
}

/** The file's options as the arguments they stand for; bad input (exit 2) names the key and value. */
export async function experimentFileArgs(path: string, flag: '--config' | '--from'): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw badInput(flag, 'a readable YAML or JSON experiment file', path, (err as Error).message);
  }
  let data: unknown;
  try {
    data = parse(text) ?? {};
  } catch (err) {
    throw badInput(`${flag} ${path}`, 'YAML or JSON', text.slice(0, 60), (err as Error).message);
  }
  return experimentArgsOf(data, path);
}

/**
 * An experiment's options (a map of long flag names to values, as in an experiment file) as the
 * arguments they stand for; bad input (exit 2) names `where`, the key and the value.
 */
export function experimentArgsOf(data: unknown, where: string): string[] {
  const table = optionTable();
  const checked = schemaOf(table).safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const [key, expected] = issue ? describeIssue(issue, table) : ['the file', 'valid options'];
    const value = issue?.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown>)[k], data);
    // A string as badInput quotes it; anything else as its JSON (an array reads [1,2], not 1,2).
    throw badInput(`${where}: ${key}`, expected, typeof value === 'string' ? value : asJson(value));
  }
  const byAttribute = Object.fromEntries(
    table.flatMap((o) => {
      const value = (checked.data as Record<string, unknown>)[o.key];
      return value === undefined ? [] : [[o.attribute, value]];
    }),
  );
  const args = argsFor(table, byAttribute);
  try {
    buildExperimentProgram().parse(args, { from: 'user' });
  } catch (err) {
    if (isHarnessError(err)) throw badInput(where, 'valid option values', args.join(' '), err.message);
    throw err;
  }
  return args;
}

/** The value of `--name v` or `--name=v` in argv, if given. */
function argValue(argv: readonly string[], long: string): string | undefined {
  for (const [i, arg] of argv.entries()) {
    if (arg === long) return argv[i + 1] ?? '';
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
  }
  return undefined;
}

/** argv with `--config FILE` or `--from RUN_DIR` expanded in front (the command line wins). */
export async function expandExperimentFile(argv: readonly string[]): Promise<string[]> {
  const config = argValue(argv, '--config');
  const from = argValue(argv, '--from');
  if (config !== undefined && from !== undefined)
    throw badInput('--from', 'not with --config (one experiment file)', from);
  if (config !== undefined && (argValue(argv, '--suite') ?? '') !== '')
    throw badInput('--config', 'not with --suite (the suite is its own list of experiments)', config);
  const fileArgs =
    config !== undefined
      ? await experimentFileArgs(config, '--config')
      : from !== undefined
        ? await experimentFileArgs(join(from, RUN_CONFIG_FILE), '--from')
        : [];
  return [...fileArgs, ...argv];
}
