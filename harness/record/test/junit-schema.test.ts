// Every JUnit file the harness writes (a run's thresholds, a suite's shapes, compare's metrics)
// validates against Jenkins' JUnit schema (junit-10.xsd beside this file, from jenkinsci/xunit-plugin)
// with xmllint (libxml2-utils; `npm run tools` installs it).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { execa } from 'execa';
import { compareRuns, comparisonJUnit, readRuns } from '../compare/index.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import { suiteJUnit } from '../../campaigns/suite/summarize-suite.ts';
import { ensureXmllint } from '../../provision/index.ts';
import { buildJUnit } from '../junit.ts';

const XSD = join(PROJECT_ROOT, 'harness', 'record', 'test', 'junit-10.xsd');
const SAMPLES = join(PROJECT_ROOT, 'results', 'baselines');

it("run, suite and compare JUnit files validate against Jenkins' schema", async (t) => {
  const xmllint = await ensureXmllint();
  const dir = await mkdtemp(join(tmpdir(), 'junit-schema-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const comparison = compareRuns(
    await readRuns(join(SAMPLES, 'sample-baseline.csv')),
    await readRuns(join(SAMPLES, 'sample-candidate.csv')),
    0.01,
  );
  const row = {
    experiment: 'E1 ztunnel-upgrade',
    repeats: 5,
    document: '4-6',
    ours: '60 <&> "x"',
    reproduce: 'r',
  };
  const files: Record<string, string> = {
    'run.xml': buildJUnit(
      'ztunnel-harness run',
      [
        { className: 'c', name: 'failed<=9', outcome: 'pass', message: 'failed = 3' },
        { className: 'c', name: 'p99_ms<500', outcome: 'fail', message: 'p99_ms = 612 & more' },
        { className: 'c', name: 'run', outcome: 'skipped', message: 'nothing to check' },
      ],
      new Date(0),
    ),
    'suite.xml': suiteJUnit('seeds', [
      { ...row, configuration: 'c=100', shape: 'no' },
      { ...row, configuration: 'c=1000', shape: 'yes' },
      { ...row, configuration: 'arm', shape: '-' },
    ]),
    'compare.xml': comparisonJUnit(comparison),
  };
  for (const [name, xml] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, xml);
    const result = await execa(xmllint, ['--noout', '--schema', XSD, path], { reject: false });
    assert.equal(result.exitCode, 0, `${name}: ${result.stderr}`);
  }
});
