export { ensureK6, pinnedK6Path } from './ensure-k6.ts';
export type { EnsureK6Options, K6Binary, K6Source } from './ensure-k6.ts';
export { K6_VERSION } from './k6-version.ts';
export { ensureChromium, ensureXmllint } from './ensure-chromium.ts';
