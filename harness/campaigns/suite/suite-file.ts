// A suite as a data file (suites/seeds.yaml is the one we ship): a list of experiments, each with
// the document's figure, how our figure reads (a named report) and the shape rule that says whether
// ours matches. An entry's `run` is an experiment file's content (the keys of `--config`), turned into
// the command-line arguments it stands for by the same code, so no option can be dropped on the way.
// Everything is checked when the file is read, before any run: unknown keys, option values, rule
// syntax, unknown columns, a comparison with a configuration the suite does not have.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { isMap, isSeq, parse, parseDocument } from 'yaml';
import { z } from 'zod';
import { backendsWithOption, DEFAULT_BACKEND } from '../../../clusters/registry.ts';
import { badInput } from '../../../lib/index.ts';
import { buildExperimentProgram, paramsFromFlags } from '../../cli/experiment-program.ts';
import type { ExperimentFlags } from '../../cli/experiment-program.ts';
import { experimentArgsOf } from '../../cli/experiment-file.ts';
import { SUMMARY_COLUMN_NAMES } from '../../record/run-row.ts';
import { backendsRunning, CLUSTER_SCENARIOS } from '../../run/scenarios/index.ts';
import { ENTRY_REPORT_NAMES } from './entry-reports.ts';
import type { EntryReport } from './entry-reports.ts';
import { parseCondition } from './shape-rule.ts';
import type { ShapeRule } from './shape-rule.ts';
import { suitePath } from '../../cli/suite-path.ts';

/** The copy of the suite file every suite folder holds. */
export const SUITE_FILE = 'suite.yaml';

export interface SuiteEntry {
  /** E1..E5 and its name. */
  experiment: string;
  /** What this entry runs, for the table; unique in the suite. */
  configuration: string;
  /** `npm run experiment` arguments for the entry's experiment (only what its `run` sets). */
  args: string[];
  /** Those arguments parsed, every option resolved. */
  flags: ExperimentFlags;
  /** Repetitions when the suite is not given --repeat (the ASM table used five). */
  repeats: number;
  /** Seconds one repetition takes, roughly (load + cluster + drain), for the up-front estimate. */
  estimateS: number;
  documentFigure: string;
  report: EntryReport;
  /** Absent for arms the documents give no figure for (the table shows "-"). */
  shape?: ShapeRule;
}

export interface Suite {
  name: string;
  /** The file it was read from (copied into every suite folder). */
  path: string;
  text: string;
  entries: SuiteEntry[];
  /**
   * Run in rounds, each entry once a round, rather than each entry's repeats back to back: a drift of
   * the machine over the suite then falls on every entry alike (the version matrix's A-vs-B question).
   */
  interleave: boolean;
}

const conditions = z.array(z.string()).default([]);
const SUITE_SCHEMA = z.strictObject({
  /** Default: the file's name (a suite folder's copy records it here). */
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  interleave: z.boolean().default(false),
  entries: z
    .array(
      z.strictObject({
        experiment: z.string().min(1),
        configuration: z.string().min(1),
        run: z.record(z.string(), z.unknown()),
        repeats: z.number().int().min(1).max(100),
        estimate_s: z.number().positive().max(3600),
        document: z.string(),
        report: z.enum(ENTRY_REPORT_NAMES),
        shape: z
          .strictObject({
            every_run: conditions,
            median: conditions,
            against: z.strictObject({ configuration: z.string(), median: conditions }).optional(),
          })
          .optional(),
      }),
    )
    .min(1),
});
type EntryData = z.infer<typeof SUITE_SCHEMA>['entries'][number];

/** The suite file's text as a suite folder keeps it: with its name, so a re-judged table says it. */
export function suiteCopy(suite: Suite, ran: readonly SuiteEntry[] = suite.entries): string {
  const doc = parseDocument(suite.text);
  if (!doc.has('name')) doc.set('name', suite.name);
  // The entries as they ran (`--only` selects some): the folder's entry folders are numbered in
  // this order, so the table rebuilt from the folder finds each one's runs.
  const keep = new Set(ran.map((e) => `${e.experiment}\n${e.configuration}`));
  const entries = doc.get('entries');
  if (isSeq(entries))
    entries.items = entries.items.filter(
      (item) =>
        !isMap(item) || keep.has(`${String(item.get('experiment'))}\n${String(item.get('configuration'))}`),
    );
  return doc.toString();
}

export async function loadSuite(nameOrPath: string): Promise<Suite> {
  const path = suitePath(nameOrPath);
  const text = await readFile(path, 'utf8');
  return { ...parseSuite(text, path), text };
}

/** The suite in `text` (read from `path`, named in messages), checked throughout. */
export function parseSuite(text: string, path: string): Omit<Suite, 'text'> {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw badInput(`suite file ${path}`, 'YAML', text.slice(0, 60), (err as Error).message);
  }
  const checked = SUITE_SCHEMA.safeParse(data);
  if (!checked.success) throw suiteIssue(path, data, checked.error.issues[0]);
  const entries = checked.data.entries.map((e, i) => entryOf(e, `${path}: entries[${String(i)}]`));
  const names = entries.map((e) => e.configuration);
  for (const [i, entry] of entries.entries()) {
    if (names.indexOf(entry.configuration) !== i)
      throw badInput(
        `${path}: entries[${String(i)}].configuration`,
        'unique in the suite',
        entry.configuration,
      );
    const against = entry.shape?.against?.configuration;
    if (against !== undefined && !names.includes(against))
      throw badInput(`${path}: entries[${String(i)}].shape.against.configuration`, 'another entry', against);
  }
  return {
    name: checked.data.name ?? basename(path, extname(path)),
    path,
    entries,
    interleave: checked.data.interleave,
  };
}

/** `entries[0].shape.median` */
const formatPath = (keys: readonly PropertyKey[]): string =>
  keys.map((k, i) => (typeof k === 'number' ? `[${String(k)}]` : `${i ? '.' : ''}${String(k)}`)).join('');

/** A schema issue as bad input: where in the file, what zod expected, the value found there. */
function suiteIssue(path: string, data: unknown, issue: z.core.$ZodIssue | undefined) {
  const keys = issue?.path ?? [];
  const where = `${path}: ${formatPath(keys) || 'the file'}`;
  if (issue?.code === 'unrecognized_keys')
    return badInput(
      where,
      'without unknown keys (see the header of suites/seeds.yaml)',
      issue.keys.join(', '),
    );
  const value = keys.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], data);
  return badInput(
    where,
    `valid: ${issue?.message ?? 'a suite'}`,
    typeof value === 'string' ? value : JSON.stringify(value ?? null),
  );
}

/** Options the suite sets for every entry, never an entry itself. */
const SUITE_OWNED = ['repeat', 'results-dir'];

function entryOf(e: EntryData, where: string): SuiteEntry {
  const owned = SUITE_OWNED.find((k) => k in e.run);
  if (owned) throw badInput(`${where}.run`, `without ${owned} (the suite sets it; use repeats)`, owned);
  const conditionCount =
    (e.shape?.every_run.length ?? 0) + (e.shape?.median.length ?? 0) + (e.shape?.against?.median.length ?? 0);
  if (e.shape && conditionCount === 0)
    throw badInput(
      `${where}.shape`,
      'at least one condition (or no shape: a measurement)',
      JSON.stringify(e.shape),
    );
  const args = experimentArgsOf(e.run, `${where}.run`);
  const program = buildExperimentProgram();
  // An entry that sets one backend's own option (kind's control-plane), or whose scenario needs what
  // the default backend lacks (the gateway's rollout), is checked on a backend that has it; on
  // another the suite's table says why in its place (entry-availability.ts).
  const named = CLUSTER_SCENARIOS[String(e.run['scenario'])];
  const [able] = named ? backendsRunning(named) : [];
  const owner =
    'backend' in e.run
      ? undefined
      : (Object.keys(e.run).flatMap(backendsWithOption)[0] ?? (able === DEFAULT_BACKEND ? undefined : able));
  const flags = program
    .parse(owner ? [...args, '--backend', owner] : args, { from: 'user' })
    .opts<ExperimentFlags>();
  const scenario = CLUSTER_SCENARIOS[flags.scenario];
  if (!scenario) throw badInput(`${where}.run.scenario`, 'a cluster scenario', flags.scenario);
  // The entry's parameters, checked as a run checks them (refusals are this file's bad input).
  paramsFromFlags(program, flags, scenario);
  // The columns this entry's runs will have: the rule may use only those.
  const columns = new Set([...SUMMARY_COLUMN_NAMES, ...Object.keys(scenario.companionColumns ?? {})]);
  const parse = (list: readonly string[], key: string) =>
    list.map((text, i) => {
      try {
        return parseCondition(text, columns);
      } catch (err) {
        throw badInput(`${where}.shape.${key}[${String(i)}]`, 'a condition', text, (err as Error).message);
      }
    });
  const s = e.shape;
  return {
    experiment: e.experiment,
    configuration: e.configuration,
    args,
    flags,
    repeats: e.repeats,
    estimateS: e.estimate_s,
    documentFigure: e.document,
    report: e.report,
    ...(s && {
      shape: {
        everyRun: parse(s.every_run, 'every_run'),
        median: parse(s.median, 'median'),
        ...(s.against && {
          against: {
            configuration: s.against.configuration,
            median: parse(s.against.median, 'against.median'),
          },
        }),
      },
    }),
  };
}
