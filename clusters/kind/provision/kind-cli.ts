import { execa } from 'execa';
import { pinnedToolPath } from '../../../lib/install/index.ts';
import type { GoToolSpec } from '../../../lib/install/index.ts';
import { KIND_MODULE, KUBERNETES_BUILD, KUBERNETES_VERSION } from './node-image/pins.ts';
import type { GoBuildSpec } from './go-build-module.ts';
import { DEFAULT_TOOLS_DIR } from '../../../lib/index.ts';
import { join } from 'node:path';

/** kind v0.33.0 (`go install sigs.k8s.io/kind@v0.33.0`), checked against the module's go.sum hash. */
export const KIND: GoToolSpec = {
  name: 'kind',
  installPath: KIND_MODULE.module,
  module: KIND_MODULE.module,
  version: KIND_MODULE.version.slice(1),
  moduleSum: KIND_MODULE.sum,
  binName: 'kind',
  why: 'the kind backend creates its clusters with it',
  pathVersion: async (binPath, env) => {
    const out = await execa(binPath, ['version'], { env, extendEnv: false, reject: false, timeout: 15_000 });
    const version = /^kind v(\d+\.\d+\.\d+)/.exec(out.stdout.trim())?.[1];
    return version === KIND_MODULE.version.slice(1) ? version : undefined;
  },
};

/** kubectl of the cluster's Kubernetes version, from the same module build as the node's binaries. */
export const KUBECTL_BUILD: GoBuildSpec = {
  ...KUBERNETES_BUILD,
  name: 'kubectl',
  programs: [{ pkg: 'k8s.io/kubernetes/cmd/kubectl', bin: 'kubectl' }],
};

export function pinnedKindPath(toolsDir = DEFAULT_TOOLS_DIR): string {
  return pinnedToolPath(KIND, toolsDir);
}

export function pinnedKubectlPath(toolsDir = DEFAULT_TOOLS_DIR): string {
  return join(toolsDir, 'kind', 'bin', `kubectl-${KUBERNETES_VERSION}`, 'kubectl');
}
