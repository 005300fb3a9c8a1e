export { createKindBackend } from './kind-backend.ts';
export type { KindBackendOptions } from './kind-options.ts';
export { buildKindConfig } from './kind-config.ts';
export { KIND_IMAGES } from './kind-images.ts';
export { createKindTools, KIND_VERSION } from './kind-tools.ts';
export type { KindTools } from './kind-tools.ts';
