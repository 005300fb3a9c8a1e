import { execa } from 'execa';
import type { GoToolSpec } from './go-tool.ts';

/**
 * fortio, the documents' own load generator (ASM ran `fortio load -qps 0 -c 1000 -t 60s -timeout 10s`).
 * v1.66.0: the newest release the Go module proxy builds here (a newer one needs a module it refuses);
 * Apache-2.0. A `fortio` on PATH is used when it is 1.66.x.
 */
export const FORTIO: GoToolSpec = {
  name: 'fortio',
  installPath: 'fortio.org/fortio',
  module: 'fortio.org/fortio',
  version: '1.66.0',
  moduleSum: 'h1:9F/200qIu136z847bxs/NeAoYdJaQlVofYlppi3qwcw=',
  binName: 'fortio',
  why: 'the load generator',
  pathVersion: async (binPath, env) => {
    const out = await execa(binPath, ['version'], { env, extendEnv: false, reject: false, timeout: 15_000 });
    const version = /^(\d+\.\d+\.\d+)/.exec(out.stdout.trim())?.[1];
    return version?.startsWith('1.66.') ? version : undefined;
  },
};
