export { chooseGenerator, GENERATOR_KINDS } from './choose-generator.ts';
export type { GeneratorChoice, GeneratorKind, LoadGenerator } from './choose-generator.ts';
export { findK6 } from './find-k6.ts';
export type { K6Found } from './find-k6.ts';
export { FORTIO } from './fortio.ts';
export { GO_HTTPBIN } from './go-httpbin.ts';
export { ensureGoTool, pinnedToolPath } from './go-tool.ts';
export type { GoToolBinary, GoToolSpec } from './go-tool.ts';
export { ensureChromium, ensureXmllint } from './ensure-chromium.ts';
