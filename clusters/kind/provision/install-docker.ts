import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { consentToHostChange, ErrorCode, HarnessError } from '../../../lib/index.ts';
import { findOnPath } from '../../../lib/install/find-on-path.ts';
import type { LoggedStep } from '../../steps/step-runner.ts';

/**
 * Debian's docker.io (dockerd 20.10, containerd, runc) and jq (the runc wrapper), as root on a Debian
 * machine, when dockerd is not on PATH. invoke-rc.d's policy layer (policy-rc.d exit 101, man
 * invoke-rc.d) keeps the package from starting a system daemon: we start our own.
 */
export async function installDockerEngine(
  step: LoggedStep,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const missing = [
    ...((await findOnPath('dockerd', env)) ? [] : ['docker.io']),
    ...((await findOnPath('jq', env)) ? [] : ['jq']),
  ];
  if (missing.length === 0) return;
  const isDebian = existsSync('/etc/debian_version') && (await findOnPath('apt-get', env)) !== undefined;
  if (process.getuid?.() !== 0 || !isDebian)
    throw new HarnessError(
      ErrorCode.ToolMissing,
      `no Docker engine answers and ${missing.join(' and ')} cannot be installed here (needs root on Debian); start a Docker engine (https://docs.docker.com/engine/install/), or run on the embedded cluster with --backend local`,
    );
  await consentToHostChange(
    {
      action: `install Debian's ${missing.join(' and ')} (apt-get update; apt-get install)`,
      effects: [
        ...(missing.includes('docker.io')
          ? [
              "the package enables docker's systemd units for the next boot; none is started now (policy-rc.d)",
            ]
          : []),
      ],
      rerun: 'npm run tools -- --kind --yes',
    },
    undefined,
    env,
  );
  step.note(`installing ${missing.join(' ')} (apt-get)`, true);
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) await writeFile(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const aptEnv = { DEBIAN_FRONTEND: 'noninteractive' };
    await step.run('apt-get', ['update', '-qq'], { env: aptEnv });
    await step.run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      env: aptEnv,
    });
  } finally {
    if (ownPolicy) await rm(policy, { force: true });
  }
}
