import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** What the kind backend needs to know about the Docker engine (`docker info --format '{{json .}}'`). */
export interface DockerInfo {
  /**
   * Where images live: `containerd (<snapshotter>)` for the containerd image store (Docker 29's
   * default; `DriverStatus` says `driver-type io.containerd.snapshotter.v1`), else the classic
   * graph driver's name (`overlay2`). kind's image loading differs between them (kind #3795, #4066).
   */
  imageStore: string;
  /** "1" or "2": kubelets from Kubernetes 1.35 refuse to start on cgroup v1 (KEP-5573). */
  cgroupVersion: string;
  /** `linux/amd64`, `linux/arm64`: the platform `docker save --platform` keeps; '' when unknown. */
  platform: string;
}

/** `uname -m` as Docker reports it, to the OCI architecture names `--platform` takes. */
const OCI_ARCH: Record<string, string> = {
  x86_64: 'amd64',
  amd64: 'amd64',
  aarch64: 'arm64',
  arm64: 'arm64',
};

export function parseDockerInfo(json: string): DockerInfo {
  let info: {
    Driver?: string;
    DriverStatus?: [string, string][];
    CgroupVersion?: string;
    Architecture?: string;
  };
  try {
    info = JSON.parse(json) as typeof info;
  } catch (err) {
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `docker info printed something that is not JSON (${JSON.stringify(json.slice(0, 120))})`,
      { cause: err },
    );
  }
  const driver = info.Driver ?? '';
  const isContainerd = (info.DriverStatus ?? []).some(
    ([key, value]) => key === 'driver-type' && value.startsWith('io.containerd.snapshotter'),
  );
  const arch = OCI_ARCH[info.Architecture ?? ''];
  return {
    imageStore: isContainerd ? `containerd (${driver})` : driver,
    cgroupVersion: info.CgroupVersion ?? '',
    platform: arch ? `linux/${arch}` : '',
  };
}

/**
 * Refuses (exit 2) an engine on cgroup v1 when the node image's kubelet will not start there: from
 * Kubernetes 1.35 `failCgroupV1` defaults to true (KEP-5573), which shows up only as kubeadm timing
 * out minutes into `kind create cluster`. Our node image (v1.34) runs on cgroup v1, and an unknown
 * version is refused as kind v0.33's default (v1.37) would be.
 */
export function checkCgroupVersion(info: DockerInfo, kubernetesVersion: string): void {
  if (info.cgroupVersion !== '1') return;
  const minor = Number(/^v1\.(\d+)\./.exec(kubernetesVersion)?.[1] ?? 'NaN');
  if (Number.isFinite(minor) && minor < 35) return;
  throw new HarnessError(
    ErrorCode.ToolMissing,
    `Docker runs containers on cgroup v1 (docker info: CgroupVersion 1), and the kubelet in the node image (Kubernetes ${kubernetesVersion || "v1.37, kind v0.33's default"}) refuses to start on cgroup v1 (failCgroupV1, KEP-5573); use --node-image auto (ours, Kubernetes v1.34, runs on cgroup v1), boot the host with cgroup v2 (systemd.unified_cgroup_hierarchy=1), or run on the embedded cluster with --backend local`,
  );
}
