// `npm run kind-smoke`: the whole mesh on a real kind cluster (needs Docker and kind; the nightly's
// kind job runs it), as a chain of named steps: create the cluster and load the images (up() also
// brings istiod up), apply E2's topology (node-address ztunnel, the Envoy gateway on its NodePort,
// ambient httpbin), wait until the ingress answers, send marked requests through it, restart httpbin
// like kubectl, then read the components' logs and check the requests crossed the mesh: the
// gateway's access log (200 through an HBONE upstream) and a ztunnel's inbound connection lines. On
// a failure the backend saves `kind export logs` and the troubled pods' previous logs into the
// smoke's folder before the cluster goes. Exit 0: the mesh works on kind; 3: it could not be shown.
import { join } from 'node:path';
import { Command } from 'commander';
import { createKindBackend } from '../../clusters/kind/index.ts';
import { KIND_INGRESS_PORT, KIND_NODE_IMAGE } from '../../clusters/kind/provider.ts';
import { createSystemClock, ErrorCode, EXIT, HarnessError, makeDirectory } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { meshPathEvidence, meshPathProblems, sendMarked } from '../run/checks/mesh-path.ts';
import { commanderOption } from '../cli/commander-option.ts';
import type { CommanderFlag } from '../cli/commander-option.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import { runMain } from '../cli/run-main.ts';
import { addVersionOption } from '../cli/version.ts';
import { RESULTS_DIR } from '../options/experiment-options.ts';
import { HTTPBIN_DEPLOYMENT, scenarioManifests } from '../run/scenario-manifests.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { createRunId } from '../record/run-id.ts';

/** Requests sent through the ingress: enough to cross every httpbin pod, few enough to read back. */
const SMOKE_REQUESTS = 30;

// The experiment's own flags (the kind backend's, the results folder), with this command's help.
const INGRESS_PORT: Flag<number> = {
  ...KIND_INGRESS_PORT,
  description: "the host port (on 127.0.0.1) kind maps the gateway's nodePort to",
};
const NODE_IMAGE: CommanderFlag<string> = {
  ...KIND_NODE_IMAGE,
  description:
    "the node image: auto (kind's official image where it can be had and runs here, else ours built from the package registries, cached) or an image reference the engine has",
  // No parser: the value goes to the experiment's, which checks it as for a run (below).
  parse: undefined,
};
const RESULTS: Flag<string> = {
  ...RESULTS_DIR,
  description: 'where the smoke folder (pod logs, kind export logs) goes',
};

runMain(async (signal) => {
  const program = addVersionOption(
    new Command('kind-smoke').description(
      'The whole mesh on a real kind cluster (needs Docker and kind): creates the cluster, loads the images, deploys istiod, ztunnel, the Envoy gateway and ambient httpbin, sends requests through them, checks their logs, deletes the cluster (several minutes)',
    ),
  )
    .addOption(commanderOption(INGRESS_PORT))
    .addOption(commanderOption(NODE_IMAGE))
    .addOption(commanderOption(RESULTS))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.parse(process.argv);
  const options = program.opts<{ kindIngressPort: number; resultsDir: string; nodeImage: string }>();
  // E2's topology on kind, from the same defaults and manifests as `--backend kind --scenario
  // workload-rollout` (node-address ztunnel, the gateway's NodePort, three ambient httpbin pods).
  const { params } = await parseExperimentArgs([
    '--backend',
    'kind',
    '--scenario',
    'workload-rollout',
    '--kind-ingress-port',
    String(options.kindIngressPort),
    // Checked there as for an experiment (exit 2 before anything starts).
    '--node-image',
    options.nodeImage,
  ]);
  if (!params) throw new Error('workload-rollout has no parameters');
  const clock = createSystemClock();
  const dir = join(options.resultsDir, 'kind-smoke', createRunId('kind-smoke', Date.now()));
  await makeDirectory(dir);
  const say = (text: string): void => {
    process.stdout.write(`[${(clock.now() / 1000).toFixed(1)} s] ${text}\n`);
  };
  const backend = createKindBackend({
    clock,
    projectRoot: PROJECT_ROOT,
    name: 'ztunnel-harness-smoke',
    ingressHostPort: options.kindIngressPort,
    logDir: join(dir, 'pods'),
    kindLogsDir: join(dir, 'kind-logs'),
    nodeImage: options.nodeImage,
    onLogs: (message) => process.stdout.write(message),
    // Each step (engine, kind, node image, images, cluster, ...) timed; steps.csv and logs in steps/.
    onProgress: (message) => {
      say(message.trimEnd());
    },
  });
  try {
    say(`creating the kind cluster, building and loading images (several minutes); evidence in ${dir}`);
    await backend.preflight();
    await backend.up(signal);
    say(`up: ${JSON.stringify(backend.describe())}`);
    await backend.apply(scenarioManifests(params));
    await backend.waitForReady({ timeoutMs: 300_000, signal });
    const { ingress, pods } = backend.addresses();
    if (!ingress)
      throw new HarnessError(ErrorCode.ComponentFailed, 'the gateway is Ready but has no address');
    say(`ready: ${String(pods.length)} pods, ingress ${ingress}`);
    const statuses = await sendMarked(ingress, SMOKE_REQUESTS, signal);
    const notOk = statuses.filter((s) => s !== 200);
    say(`sent ${String(SMOKE_REQUESTS)} requests: ${String(SMOKE_REQUESTS - notOk.length)} answered 200`);
    await backend.rolloutRestart(HTTPBIN_DEPLOYMENT);
    const rollout = await backend.waitForRollout(HTTPBIN_DEPLOYMENT, {
      timeoutMs: 300_000,
      untilOldPodsGone: true,
      signal,
    });
    say(`rollout: ${JSON.stringify(rollout)}`);
    for (const e of backend.events())
      process.stdout.write(`${(e.atMs / 1000).toFixed(3)} ${e.kind} ${e.object} ${e.detail ?? ''}\n`);
    // close() saves every container's log first (the gateway's access log, ztunnel's connection
    // lines for the old pods it closed); logs() reads them back.
    await backend.close();
    const logsOf = (owner: string): string[] =>
      pods.filter((p) => p.owner === owner).flatMap((p) => backend.logs(`${p.namespace}/${p.name}`));
    const evidence = meshPathEvidence({
      gateway: logsOf('deployment/istio-ingressgateway'),
      ztunnels: logsOf('daemonset/ztunnel'),
    });
    say(`mesh path: ${JSON.stringify(evidence)}`);
    const problems = [
      ...(notOk.length > 0
        ? [`${String(notOk.length)} requests were not answered 200: ${notOk.join(', ')}`]
        : []),
      ...meshPathProblems(evidence, SMOKE_REQUESTS),
    ];
    if (problems.length > 0)
      throw new HarnessError(
        ErrorCode.ComponentFailed,
        `the mesh path on kind is not shown: ${problems.join('; ')}; the pods' logs are in ${join(dir, 'pods')}`,
      );
    say('the mesh works on kind: every request crossed the gateway and ztunnel over HBONE');
    return EXIT.pass;
  } catch (err) {
    // destroy(err) keeps the evidence first (kind export logs, the troubled pods' logs); close() would not.
    await backend.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  } finally {
    await backend.close();
  }
});
