import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import { findOnPath } from '../../../lib/install/index.ts';
import type { PinnedModule } from './go-build-module.ts';
import type { LoggedStep } from '../../steps/step-runner.ts';

/**
 * Istio's API module, whose kubernetes/customresourcedefinitions.gen.yaml is what Istio's base chart
 * installs (istio/istio bin/update_crds.sh copies it to manifests/charts/base/files/crd-all.gen.yaml),
 * pinned by version and go.sum hash.
 */
export const ISTIO_API: PinnedModule = {
  module: 'istio.io/api',
  version: 'v1.32.0',
  sum: 'h1:37mJvg9I0biYZAEQF+MATs4FNeCpXEIVO3LFpVb6iNM=',
};

export const ISTIO_CRD_FILE = 'kubernetes/customresourcedefinitions.gen.yaml';

/** The routing API our control plane serves: networking.istio.io Gateway and VirtualService. */
export const ROUTING_CRDS = ['gateways.networking.istio.io', 'virtualservices.networking.istio.io'] as const;

/** What `go mod download -json` prints for a module (cmd/go/internal/modcmd/download.go moduleJSON). */
interface DownloadedModule {
  Dir?: string;
  Sum?: string;
  Error?: string;
}

/**
 * The named CustomResourceDefinitions from a multi-document YAML, as plain objects (the `yaml`
 * package: client-node's loadAllYaml would turn them into its model classes, whose JSON-schema keys,
 * `x-kubernetes-*`, do not survive the round trip). Throws naming any that is missing.
 */
export function extractCrds(text: string, names: readonly string[]): KubernetesObject[] {
  const all = parseAllDocuments(text).map((d) => d.toJS() as KubernetesObject | null);
  const crds = names.map((name) =>
    all.find((o) => o?.kind === 'CustomResourceDefinition' && o.metadata?.name === name),
  );
  const missing = names.filter((_, i) => crds[i] === undefined);
  if (missing.length)
    throw new HarnessError(ErrorCode.ProvisionFailed, `${ISTIO_CRD_FILE} has no ${missing.join(', ')}`);
  return crds.flatMap((c) => (c ? [c] : []));
}

export interface FetchIstioCrdsOptions {
  pin?: PinnedModule;
  names?: readonly string[];
  /** Where `go` is looked for (PATH; default the process's). */
  env?: NodeJS.ProcessEnv;
  /** More environment for `go` (GOPROXY=off: the module cache only). */
  goEnv?: Record<string, string>;
}

/**
 * Istio's Gateway and VirtualService CRDs from the pinned istio.io/api module: `go mod download
 * -json` (the module cache, else the Go module proxy) names its folder and hash; a hash that is not
 * the pin fails the step before anything is read. Nothing of it is kept in this repository.
 */
export async function fetchIstioCrds(
  step: LoggedStep,
  options: FetchIstioCrdsOptions = {},
): Promise<KubernetesObject[]> {
  const pin = options.pin ?? ISTIO_API;
  const go = await findOnPath('go', options.env ?? process.env);
  if (!go)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `go not found on PATH: the kind backend takes Istio's CRDs from ${pin.module}@${pin.version} with \`go mod download\`; install Go >= 1.26`,
    );
  const ref = `${pin.module}@${pin.version}`;
  // Outside any module (tmpdir), so no go.mod around decides; the JSON says why on failure too.
  const out = await step.run(go, ['mod', 'download', '-json', ref], {
    cwd: tmpdir(),
    capture: true,
    allowFailure: true,
    env: { GOTOOLCHAIN: 'local', GOFLAGS: '', ...options.goEnv },
  });
  let info: DownloadedModule;
  try {
    info = JSON.parse(out) as DownloadedModule;
  } catch {
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `go mod download -json ${ref} printed no JSON: ${out.slice(0, 200)}`,
    );
  }
  if (info.Error || !info.Dir)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `go mod download ${ref}: ${info.Error ?? 'no Dir in its answer'}`,
    );
  if (info.Sum !== pin.sum)
    throw new HarnessError(
      ErrorCode.ProvisionFailed,
      `${ref} has hash ${info.Sum ?? '(none)'}, pinned ${pin.sum}: not using it; check the module cache (\`go clean -modcache\`) or the pin`,
    );
  const text = await readFile(join(info.Dir, ISTIO_CRD_FILE), 'utf8');
  const crds = extractCrds(text, options.names ?? ROUTING_CRDS);
  step.note(`${ref}: ${crds.map((c) => c.metadata?.name ?? '').join(', ')}`, true);
  return crds;
}
