export { chooseGenerator, GENERATOR_KINDS } from './choose-generator.ts';
export type { GeneratorChoice, GeneratorKind, LoadGenerator } from './choose-generator.ts';
export { findK6 } from './find-k6.ts';
export type { K6Found } from './find-k6.ts';
export { FORTIO } from './fortio.ts';
export { ensureChromium, ensureXmllint } from './ensure-chromium.ts';
export { ensureNetnsTools } from './ensure-netns-tools.ts';
// The binaries a cluster runs (Envoy, go-httpbin) are found or fetched from lib/, where the local
// backend can reach them; `npm run tools` installs them from here with the rest.
export {
  ENVOY,
  ensureEnvoy,
  ensureGoTool,
  GO_HTTPBIN,
  pinnedEnvoyPath,
  pinnedToolPath,
} from '../../lib/install/index.ts';
export type { EnvoyBinary, GoToolBinary, GoToolSpec } from '../../lib/install/index.ts';
