export { ENVOY, ensureEnvoy, pinnedEnvoyPath } from './envoy.ts';
export type { EnvoyBinary } from './envoy.ts';
export { findOnPath, isExecutable } from './find-on-path.ts';
export { FORTIO } from './fortio.ts';
export { GO_HTTPBIN } from './go-httpbin.ts';
export { ensureGoTool, pinnedToolPath } from './go-tool.ts';
export type { EnsureGoToolOptions, GoToolBinary, GoToolSpec } from './go-tool.ts';
