import { badInput } from '../../lib/index.ts';

/**
 * The local backend's timing model: the latencies a real cluster adds between cause and effect,
 * which the process cluster cannot have by itself because its "API server" is a function call.
 * Every value is recorded with each result; the kind backend measures the real ones from watch
 * timestamps so the two can be compared.
 */
export interface TimingModel {
  /**
   * API server -> watcher (controllers, kubelet, control plane) delivery. Upstream: watch events
   * typically reach clients within 10-100 ms on a quiet cluster (apiserver SLO: p99 < 1 s).
   */
  watchFanoutMs: number;
  /**
   * Kubelet pod-worker reaction to a change it has seen (start preStop/SIGTERM, start containers).
   * Upstream: syncPod runs on the pod worker as soon as the update arrives; tens of ms.
   */
  kubeletReactionMs: number;
  /**
   * Pod sandbox creation and CNI ADD before the containers start (the runtime's RunPodSandbox, network
   * setup). Upstream: typically 0.5-1.5 s with a cached image (pod startup SLO: p99 < 5 s).
   */
  sandboxSetupMs: number;
  /**
   * Container exit -> kubelet notices (PLEG). Upstream: generic PLEG relists every 1 s, so 0-1 s;
   * the default is the mean. Evented PLEG (beta) is near 0.
   */
  exitDetectionMs: number;
  /**
   * Control-plane work per push on top of the debounce (istiod's push queue, proxy convergence).
   * Upstream: pilot_proxy_convergence_time is commonly 0.1-0.5 s on small meshes.
   */
  pushLatencyMs: number;
  /** istiod PILOT_DEBOUNCE_AFTER: quiet period before a push (default 100 ms). */
  debounceQuietMs: number;
  /** istiod PILOT_DEBOUNCE_MAX: longest a push is held back by a stream of events (default 10 s). */
  debounceMaxMs: number;
}

export const DEFAULT_TIMING_MODEL: Readonly<TimingModel> = Object.freeze({
  watchFanoutMs: 20,
  kubeletReactionMs: 30,
  sandboxSetupMs: 500,
  exitDetectionMs: 500,
  pushLatencyMs: 250,
  debounceQuietMs: 100,
  debounceMaxMs: 10_000,
});

export const TIMING_MODEL_KEYS = Object.keys(DEFAULT_TIMING_MODEL) as (keyof TimingModel)[];

/** Fills defaults and rejects anything that is not a non-negative number of milliseconds. */
export function normalizeTimingModel(overrides: Partial<Record<string, unknown>> = {}): TimingModel {
  const model: TimingModel = { ...DEFAULT_TIMING_MODEL };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(TIMING_MODEL_KEYS as string[]).includes(key))
      throw badInput('a timing-model parameter', `one of ${TIMING_MODEL_KEYS.join(', ')}`, key);
    const ms = typeof value === 'string' ? Number(value) : value;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw badInput(`timing-model ${key}`, 'a non-negative number of milliseconds', value);
    model[key as keyof TimingModel] = ms;
  }
  return model;
}
