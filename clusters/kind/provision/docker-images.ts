import type { LoggedStep } from '../../steps/step-runner.ts';

/** The docker CLI against the engine a run uses (its env: DOCKER_HOST for ours). */
export interface DockerCli {
  env: Record<string, string>;
}

/** Whether the engine holds an image of this reference. */
export async function hasImage(step: LoggedStep, docker: DockerCli, ref: string): Promise<boolean> {
  const out = await step.run('docker', ['image', 'inspect', '--format', '{{.Id}}', ref], {
    env: docker.env,
    capture: true,
    allowFailure: true,
  });
  return out.trim().startsWith('sha256:');
}

/**
 * `docker build` with the legacy builder (DOCKER_BUILDKIT=0): this machine's docker client has no
 * buildx, and Docker 20.10's builder needs none. No network (`--network none`): every input is in the
 * context, nothing is pulled (`FROM` names a local image, which the legacy builder uses as it is).
 * The tag is applied only when the build succeeds, so a failed build leaves nothing tagged.
 */
export async function buildImage(
  step: LoggedStep,
  docker: DockerCli,
  options: {
    context: string;
    tag: string;
    dockerfile?: string;
    target?: string;
    labels?: Record<string, string>;
    buildArgs?: Record<string, string>;
  },
): Promise<void> {
  const labels = Object.entries(options.labels ?? {}).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  const buildArgs = Object.entries(options.buildArgs ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
  await step.run(
    'docker',
    [
      'build',
      '--network',
      'none',
      '--tag',
      options.tag,
      ...(options.dockerfile ? ['--file', options.dockerfile] : []),
      ...(options.target ? ['--target', options.target] : []),
      ...labels,
      ...buildArgs,
      options.context,
    ],
    { env: { ...docker.env, DOCKER_BUILDKIT: '0' } },
  );
}

/** A label of an image, or undefined when the image or the label is not there. */
export async function imageLabel(
  step: LoggedStep,
  docker: DockerCli,
  ref: string,
  label: string,
): Promise<string | undefined> {
  const out = await step.run(
    'docker',
    ['image', 'inspect', '--format', `{{index .Config.Labels ${JSON.stringify(label)}}}`, ref],
    {
      env: docker.env,
      capture: true,
      allowFailure: true,
    },
  );
  const value = out.trim();
  return value && value !== '<no value>' ? value : undefined;
}
