import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { checkCgroupVersion, parseDockerInfo } from './docker-info.ts';

describe('docker info', () => {
  it('names the image store, the cgroup version and the platform `docker save --platform` takes', () => {
    const table: [Record<string, unknown>, ReturnType<typeof parseDockerInfo>][] = [
      [
        {
          Driver: 'overlay2',
          DriverStatus: [['Backing Filesystem', 'extfs']],
          CgroupVersion: '2',
          Architecture: 'x86_64',
        },
        { imageStore: 'overlay2', cgroupVersion: '2', platform: 'linux/amd64' },
      ],
      [
        // Docker 29's default: the containerd image store (docker info "driver-type").
        {
          Driver: 'overlayfs',
          DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']],
          CgroupVersion: '2',
          Architecture: 'aarch64',
        },
        { imageStore: 'containerd (overlayfs)', cgroupVersion: '2', platform: 'linux/arm64' },
      ],
      [
        { Driver: 'overlay2', CgroupVersion: '1', Architecture: 's390x' },
        { imageStore: 'overlay2', cgroupVersion: '1', platform: '' },
      ],
    ];
    for (const [info, expected] of table) assert.deepEqual(parseDockerInfo(JSON.stringify(info)), expected);
    assert.throws(
      () => parseDockerInfo('WARNING: no swap'),
      /docker info printed something that is not JSON/,
    );
  });

  it('refuses cgroup v1 (exit 2) under a node image whose kubelet will not start there (1.35+ or unknown)', () => {
    const v1 = { imageStore: 'overlay2', cgroupVersion: '1', platform: 'linux/amd64' };
    checkCgroupVersion({ ...v1, cgroupVersion: '2' }, 'v1.37.0');
    // Ours: Kubernetes v1.34, whose failCgroupV1 defaults to false.
    checkCgroupVersion(v1, 'v1.34.4');
    for (const version of ['v1.35.0', 'v1.37.0', ''])
      assert.throws(
        () => {
          checkCgroupVersion(v1, version);
        },
        (err: unknown) =>
          isHarnessError(err, ErrorCode.ToolMissing) &&
          err.exitCode === 2 &&
          err.message.includes('--node-image auto'),
      );
  });
});
