import type { GoBuildSpec } from '../go-build-module.ts';

/**
 * What a node image of ours holds, pinned. Kubernetes v1.34.4: the newest 1.34 (the 1.28 report ran
 * EKS 1.34.1), whose kubelet still runs on cgroup v1 without being told (failCgroupV1 defaults to
 * true from 1.35); etcd, CoreDNS and pause at the versions kubeadm v1.34.4 asks for
 * (cmd/kubeadm/app/constants/constants.go: DefaultEtcdVersion 3.6.5-0, CoreDNSVersion v1.12.1,
 * PauseVersion 3.10.1). Every program from the Go module proxy, every hash the proxy served.
 */
export const KUBERNETES_VERSION = 'v1.34.4';
const STAGING_VERSION = 'v0.34.4';
/** kind v0.33.0: its node image recipe's files (images/base/files) come from this module. */
export const KIND_MODULE = {
  module: 'sigs.k8s.io/kind',
  version: 'v0.33.0',
  sum: 'h1:AjvDv3vOygb/VKLVQW87lfktIBzkxR8Ump9DjxC8+Lk=',
} as const;
export const ETCD_IMAGE_TAG = '3.6.5-0';
export const COREDNS_VERSION = 'v1.12.1';
export const PAUSE_VERSION = '3.10.1';

/** The 31 staging modules k8s.io/kubernetes's go.mod replaces with ./staging/src paths (v1.34.4). */
const STAGING = [
  'api',
  'apiextensions-apiserver',
  'apimachinery',
  'apiserver',
  'cli-runtime',
  'client-go',
  'cloud-provider',
  'cluster-bootstrap',
  'code-generator',
  'component-base',
  'component-helpers',
  'controller-manager',
  'cri-api',
  'cri-client',
  'csi-translation-lib',
  'dynamic-resource-allocation',
  'endpointslice',
  'externaljwt',
  'kms',
  'kube-aggregator',
  'kube-controller-manager',
  'kube-proxy',
  'kube-scheduler',
  'kubectl',
  'kubelet',
  'metrics',
  'mount-utils',
  'pod-security-admission',
  'sample-apiserver',
  'sample-cli-plugin',
  'sample-controller',
] as const;

/** hack/lib/version.sh `kube::version::ldflags`: both version packages, stamped as a release is. */
const kubeVersionFlags = (): string[] =>
  [
    `gitVersion=${KUBERNETES_VERSION}`,
    'gitMajor=1',
    'gitMinor=34',
    'gitTreeState=clean',
    // The tag's time on the module proxy (`go mod download -json`: Time), for reproducible binaries.
    'buildDate=2026-02-10T12:53:36Z',
  ].flatMap((kv) => [`k8s.io/client-go/pkg/version.${kv}`, `k8s.io/component-base/version.${kv}`]);

export const KUBERNETES_BUILD: GoBuildSpec = {
  name: 'kubernetes',
  version: KUBERNETES_VERSION,
  goDirective: '1.24.0',
  requires: [
    {
      module: 'k8s.io/kubernetes',
      version: KUBERNETES_VERSION,
      sum: 'h1:Yy6R4QB8C9kJPp25GFqEvX5XQwY5qzKeqD0Xx6oAcmk=',
    },
  ],
  replaces: Object.fromEntries(STAGING.map((m) => [`k8s.io/${m}`, `k8s.io/${m} ${STAGING_VERSION}`])),
  programs: [
    'kube-apiserver',
    'kube-controller-manager',
    'kube-proxy',
    'kube-scheduler',
    'kubeadm',
    'kubectl',
    'kubelet',
  ].map((bin) => ({ pkg: `k8s.io/kubernetes/cmd/${bin}`, bin })),
  ldflagsX: kubeVersionFlags(),
};

export const ETCD_BUILD: GoBuildSpec = {
  name: 'etcd',
  version: 'v3.6.5',
  goDirective: '1.24.0',
  requires: [
    {
      module: 'go.etcd.io/etcd/server/v3',
      version: 'v3.6.5',
      sum: 'h1:4RbUb1Bd4y1WkBHmuF+cZII83JNQMuNXzyjwigQ06y0=',
    },
  ],
  // server/main.go is etcd's own `main` (etcdmain.Main): the binary the etcd image runs.
  programs: [{ pkg: 'go.etcd.io/etcd/server/v3', bin: 'etcd' }],
};

export const COREDNS_BUILD: GoBuildSpec = {
  name: 'coredns',
  version: COREDNS_VERSION,
  goDirective: '1.24.0',
  requires: [
    {
      module: 'github.com/coredns/coredns',
      version: COREDNS_VERSION,
      sum: 'h1:haptbGscSbdWU46xrjdPj1vp3wvH1Z2FgCSQKEdgN5s=',
    },
  ],
  programs: [{ pkg: 'github.com/coredns/coredns', bin: 'coredns' }],
};

/** crictl, as kind's base image has (kind load and kind export logs use it). */
export const CRICTL_BUILD: GoBuildSpec = {
  name: 'crictl',
  version: 'v1.34.0',
  goDirective: '1.24.0',
  requires: [
    {
      module: 'sigs.k8s.io/cri-tools',
      version: 'v1.34.0',
      sum: 'h1:KqL9EJ+WgHtz1HR1exezm91n+o8O2uMLs/eHzHJHAWw=',
    },
  ],
  programs: [{ pkg: 'sigs.k8s.io/cri-tools/cmd/crictl', bin: 'crictl' }],
  ldflagsX: ['sigs.k8s.io/cri-tools/pkg/version.Version=v1.34.0'],
};
