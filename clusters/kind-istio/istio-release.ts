// Istio's own control plane for kind (--control-plane istio, issue 46): the one pseudo-version of
// istio.io/istio the Go module proxy serves as `latest` here, pinned with its go.sum hash, and the
// programs built from it with `go install` (lib/install ensureGoTool: the module hash checked in the
// built binary before it is used). Nothing of Istio's source, charts or binaries is in this
// repository: the charts are read from the module's folder in the Go module cache.
import type { GoToolSpec } from '../../lib/install/index.ts';

/** istio.io/istio at master of 2026-08-27 (the module's VERSION file: 1.31). */
export const ISTIO_MODULE = {
  module: 'istio.io/istio',
  version: '0.0.0-20260827124520-eed52ebb66ad',
  sum: 'h1:ui9TJjRMAV/hb5ehQaZDq7IUGxuQP6dra9lapT/VjHI=',
  /** The commit the pseudo-version names: the images' tag and the row's istio_version. */
  commit: 'eed52ebb66ad',
} as const;

const istioTool = (name: string, pkg: string, why: string): GoToolSpec => ({
  name,
  installPath: `${ISTIO_MODULE.module}/${pkg}`,
  module: ISTIO_MODULE.module,
  version: ISTIO_MODULE.version,
  moduleSum: ISTIO_MODULE.sum,
  binName: name,
  why,
});

/** The programs of Istio's images (pilot/docker/Dockerfile.pilot, .proxyv2; cni's Dockerfile.install-cni). */
export const ISTIO_TOOLS = {
  pilotDiscovery: istioTool(
    'pilot-discovery',
    'pilot/cmd/pilot-discovery',
    'istiod, with --control-plane istio',
  ),
  pilotAgent: istioTool(
    'pilot-agent',
    'pilot/cmd/pilot-agent',
    "the gateway's istio-proxy, with --control-plane istio",
  ),
  installCni: istioTool(
    'install-cni',
    'cni/cmd/install-cni',
    "istio-cni's node agent, with --control-plane istio",
  ),
  istioCni: istioTool('istio-cni', 'cni/cmd/istio-cni', "istio-cni's CNI plugin, with --control-plane istio"),
} as const;

/** Helm 3, which installs Istio's charts (as Istio's install docs do). */
export const HELM: GoToolSpec = {
  name: 'helm',
  installPath: 'helm.sh/helm/v3/cmd/helm',
  module: 'helm.sh/helm/v3',
  version: '3.22.0',
  moduleSum: 'h1:n1if5iQgHYsujPAcO5oonH/KiSNUmqmUF0iGVjSF3AU=',
  binName: 'helm',
  why: "installing Istio's charts, with --control-plane istio",
};
