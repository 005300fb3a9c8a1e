import { join } from 'node:path';
import { providerOf } from '../../../clusters/registry.ts';
import { collectProvenance, writeProvenance } from '../../config/provenance.ts';
import { writeRunConfig } from '../../config/run-config.ts';
import { checkCsvHeader } from '../../record/write-csv.ts';
import { createRunId } from '../../record/run-id.ts';
import { bundleK6Script, K6_SCRIPT } from '../../load/index.ts';
import { strayK6Variables } from '../../load/run-k6.ts';
import { badInput, makeDirectory } from '../../../lib/index.ts';
import { chooseGenerator } from '../../provision/index.ts';
import type { LoadGenerator } from '../../provision/index.ts';
import { SUMMARY_COLUMN_NAMES } from '../../record/run-row.ts';
import type { RunPlan, RunRequest } from './run-context.ts';

/**
 * Step 1, plan: everything that can refuse the run does so before anything starts (runs.csv taking
 * this run's columns; k6; the binaries the backend runs from here; the backend's preflight: Docker
 * and kind for kind, the loopback block for local); then the run folder with what to re-run
 * (experiment.yaml) and what it ran on (provenance.json). The backend is resolved and created here,
 * once: the run brings up the very cluster the preflight checked.
 */
export async function planRun(request: RunRequest): Promise<RunPlan> {
  const { params, clock } = request;
  const provider = providerOf(params.backend);
  // Its choices made by chance (the local loopback block) are settled first and recorded.
  const raw = request.backendSettings ?? {};
  const backendSettings = provider.settle ? provider.settle(raw) : raw;
  await checkCsvHeader(join(request.resultsDir, 'runs.csv'), SUMMARY_COLUMN_NAMES);
  const generator = await prepareGenerator(request);
  // What the backend runs from this machine (local: go-httpbin, Envoy; kind: its images), and the
  // Envoy the gateway and sidecar run. Before the backend's creation, which takes the Envoy: the
  // tools are a cache `npm run tools` fills, so a refusal after them has cost nothing in practice.
  const envoy = await provider.prepareTools({ signal: request.signal, write: request.write });
  const startedAtWallMs = clock.now() + clock.wallOffsetMs;
  const runId = createRunId(params.scenario, startedAtWallMs);
  const runDir = join(request.resultsDir, runId);
  const logDir = join(runDir, 'pods');
  // Creating a backend starts nothing; its preflight checks the machine.
  const backend = await provider.create(
    { ...params, faultTarget: request.scenario.fault.target },
    {
      clock,
      settings: backendSettings,
      logDir,
      write: request.write,
      envoyBinary: envoy.path,
    },
  );
  await backend.preflight();
  await makeDirectory(logDir);
  await makeDirectory(join(runDir, generator.kind));
  const k6Script =
    generator.kind === 'k6'
      ? await bundleK6Script({ script: K6_SCRIPT, outFile: join(runDir, 'k6', 'load.js') })
      : undefined;
  await writeRunConfig(runDir, params);
  const provenance = await collectProvenance({
    generator: `${generator.kind} ${generator.version}`,
    envoy: `envoy ${envoy.version}`,
  });
  await writeProvenance(runDir, provenance);
  return {
    ...request,
    provider,
    backend,
    backendSettings,
    generator,
    envoy,
    provenance,
    runId,
    runDir,
    startedAtWallMs,
    ...(k6Script ? { k6Script } : {}),
  };
}

/** The run's generator, said in one line; k6's own options are refused with fortio. */
async function prepareGenerator(request: RunRequest): Promise<LoadGenerator> {
  const generator = await chooseGenerator(request.params.generator, {
    signal: request.signal,
    write: request.write,
  });
  request.write(`load generator: ${generator.why}\n`);
  if (generator.kind !== 'k6' && request.params.k6Out.length > 0)
    throw badInput(
      '--k6-out',
      'used with --generator k6',
      request.params.k6Out.join(' '),
      `the load generator is ${generator.kind}`,
    );
  const stray = strayK6Variables(process.env);
  if (generator.kind === 'k6' && stray.length > 0)
    request.write(
      `k6: not passing ${stray.join(', ')} from the environment to k6 (a run is what its options say; recorded in provenance.json)\n`,
    );
  return generator;
}
