import { NODE_RUNC_WRAPPER } from '../runc-wrapper.ts';
import { PAUSE_VERSION } from './pins.ts';

/**
 * kind's containerd config (images/base/files/etc/containerd/config.toml, containerd's v2 format,
 * which Debian's containerd 1.6 reads) with two changes: the sandbox image kubeadm v1.34 names, and
 * runc behind our wrapper (runc-wrapper.ts), a no-op where the node lacks no capability.
 */
export function editContainerdConfig(kindConfig: string): string {
  const sandbox = kindConfig.replace(
    /sandbox_image = "[^"]*"/,
    `sandbox_image = "registry.k8s.io/pause:${PAUSE_VERSION}"`,
  );
  const wrapped = sandbox.replace(
    /^(\s*)SystemdCgroup = true$/gm,
    `$1SystemdCgroup = true\n$1BinaryName = "${NODE_RUNC_WRAPPER}"`,
  );
  if (wrapped === sandbox || sandbox === kindConfig)
    throw new Error(
      "kind's containerd config.toml no longer has the sandbox_image and SystemdCgroup lines this recipe edits",
    );
  return wrapped;
}

/**
 * kind's installstorage action applies /kind/manifests/default-storage.yaml, else an old host-path
 * default (kind pkg/cluster/internal/create/actions/installstorage/storage.go). kind's own manifest
 * runs local-path-provisioner, an image no registry here serves; the harness needs no volumes, so
 * ours is the StorageClass alone.
 */
export const DEFAULT_STORAGE_MANIFEST = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  namespace: kube-system
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
`;

/** kind images/base/Dockerfile's RUN steps, for Debian's packages (containerd in /usr/bin, plugins in /usr/lib/cni). */
export const NODE_BASE_SETUP = [
  'set -e',
  'chmod 755 /kind /kind/bin',
  'find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete',
  'rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* /lib/systemd/system/local-fs.target.wants/*',
  'rm -f /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*',
  'echo "ReadKMsg=no" >> /etc/systemd/journald.conf',
  'ln -sf /usr/lib/systemd/systemd /sbin/init',
  'systemctl enable kubelet.service containerd.service undo-mount-hacks.service harness-cni.service',
  'systemctl mask systemd-binfmt.service',
  'mkdir -p /etc/kubernetes/manifests',
  // kind's containerd.service runs /usr/local/bin/containerd; its CRI looks for plugins in /opt/cni/bin.
  'ln -sf /usr/bin/containerd /usr/local/bin/containerd',
  'mkdir -p /opt/cni && rm -rf /opt/cni/bin && ln -s /usr/lib/cni /opt/cni/bin',
  `ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json`,
  'containerd --version && runc --version && kubelet --version',
].join(' && \\\n    ');

export function nodeBaseDockerfile(rootfsRef: string): string {
  return [
    `FROM ${rootfsRef}`,
    'COPY root/ /',
    `RUN ${NODE_BASE_SETUP.replace(/^set -e && \\\n {4}/, '')}`,
    'ENV container=docker',
    'STOPSIGNAL SIGRTMIN+3',
    'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]',
    '',
  ].join('\n');
}
