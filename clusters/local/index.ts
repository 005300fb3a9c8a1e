export { CPU_ISOLATION_MODES } from './cpu-cgroups.ts';
export type { CpuIsolation } from './cpu-cgroups.ts';
export { ADDRESS_BLOCKS } from './address-pool.ts';
export { createLocalBackend, MAX_NODES } from './local-backend.ts';
export type { LocalBackend, LocalBackendOptions } from './local-backend.ts';
export { DEFAULT_TIMING_MODEL, normalizeTimingModel, TIMING_MODEL_KEYS } from './timing-model.ts';
export type { TimingModel } from './timing-model.ts';
