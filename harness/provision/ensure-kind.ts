import { join } from 'node:path';
import { DEFAULT_TOOLS_DIR } from '../../lib/index.ts';
import { ensureGoTool } from '../../lib/install/index.ts';
import { ensureDockerEngine } from '../../clusters/kind/provision/docker-engine.ts';
import { buildGoPrograms } from '../../clusters/kind/provision/go-build-module.ts';
import { KIND, KUBECTL_BUILD } from '../../clusters/kind/provision/kind-cli.ts';
import { createStepRunner } from '../../clusters/steps/step-runner.ts';

/**
 * The kind part of `npm run tools`: a Docker engine (the one that answers; else Debian's docker.io
 * installed and our own daemon started once to check it runs, then stopped), kind v0.33.0 (go install,
 * module hash checked) and kubectl v1.34.4 (built from the Go module proxy), each a timed step with
 * its log in .tools/kind/logs. The node image and our images are built by the first kind run (or
 * `npm run kind-smoke`), and kept.
 */
export async function ensureKindTools(options: {
  signal: AbortSignal;
  say: (line: string) => void;
  toolsDir?: string;
}): Promise<void> {
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const runner = createStepRunner({
    logDir: join(toolsDir, 'kind', 'logs'),
    write: (t) => {
      options.say(`kind tools: ${t.trimEnd()}`);
    },
    signal: options.signal,
  });
  const engine = await runner.step('engine', (step) => ensureDockerEngine(step));
  options.say(
    `docker engine: ${engine.owner === 'user' ? "the user's" : 'ours'} (server ${engine.serverVersion}${engine.wrapped ? ', runc wrapper for the missing capabilities' : ''})`,
  );
  await engine.release();
  const kind = await runner.step('kind', (step) =>
    ensureGoTool(KIND, {
      toolsDir,
      signal: options.signal,
      write: (t) => {
        step.note(t.trimEnd());
      },
    }),
  );
  options.say(`kind v${kind.version} at ${kind.path}`);
  const kubectl = await runner.step('kubectl', (step) => buildGoPrograms(step, KUBECTL_BUILD, toolsDir));
  options.say(`kubectl ${KUBECTL_BUILD.version} at ${kubectl.paths['kubectl'] ?? ''}`);
}
