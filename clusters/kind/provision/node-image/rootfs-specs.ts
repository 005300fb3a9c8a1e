import type { RootfsSpec } from './debian-rootfs.ts';

/**
 * The node's root file system: kind's base image packages (kind images/base/Dockerfile, the
 * `clean-install` line) from Debian bookworm, and in place of the containerd, runc and CNI plugins
 * kind builds from source, Debian's own packages of them (containerd 1.6, runc 1.1, plugins 1.1).
 */
export const NODE_ROOTFS: RootfsSpec = {
  name: 'kind-node',
  suite: 'bookworm',
  packages: [
    'systemd',
    'conntrack',
    'iptables',
    'nftables',
    'iproute2',
    'ethtool',
    'util-linux',
    'mount',
    'kmod',
    'libseccomp2',
    'pigz',
    'e2fsprogs',
    'bash',
    'ca-certificates',
    'curl',
    'jq',
    'procps',
    'containerd',
    'runc',
    'containernetworking-plugins',
  ],
};

/**
 * The base of every other image (the control plane's, kube-proxy's, pause, ours): certificates,
 * iptables and conntrack for kube-proxy, catatonit (a container init whose `-P` is pause's job).
 */
export const SLIM_ROOTFS: RootfsSpec = {
  name: 'slim',
  suite: 'bookworm',
  packages: ['ca-certificates', 'iptables', 'conntrack', 'iproute2', 'catatonit'],
};
