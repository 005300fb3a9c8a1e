import type { ClusterBackend } from '../../../clusters/backend.ts';
import { ISTIO_FILE_FLUSH_INTERVAL_MS } from '../../../mesh/pilot-agent/bootstrap.ts';
import { scrapeTargetsOf, startMetricsScraper } from '../../observe/metrics-scraper.ts';
import { bringUp } from './bring-up.ts';
import { driveWithFault } from './drive-with-fault.ts';
import { abortReasonOf } from './run-context.ts';
import type { Observation, RunPlan } from './run-context.ts';

/**
 * Steps 2 and 3 with the cluster's lifetime around them: whatever happens (a refusal, a component
 * failure, Ctrl-C), the cluster is closed (destroyed when the run was cut short) and what was observed
 * so far is returned with the reason.
 */
export async function observeRun(plan: RunPlan): Promise<Observation> {
  const { clock, backend } = plan;
  const failed = new AbortController();
  backend.onFailure((err) => {
    failed.abort(err);
  });
  const signal = AbortSignal.any([plan.signal, failed.signal]);
  const seen: Observation = { backend, signal, loadStartMs: clock.now(), abortReason: '' };
  try {
    const targets = await bringUp(plan, backend, signal);
    // Metrics from now on, the first scrape before the load (a baseline, and its cost not the load's),
    // where the pods' addresses are reachable from here.
    const scrapes = plan.provider.capabilities.has('podsFromHost');
    seen.scraper = startMetricsScraper({
      clock,
      targets: () => (scrapes ? scrapeTargetsOf(backend.addresses().pods) : []),
    });
    await seen.scraper.baseline;
    seen.loadStartMs = clock.now();
    await driveWithFault(plan, targets, seen);
  } catch (err) {
    seen.abortReason = signal.aborted
      ? abortReasonOf(signal)
      : err instanceof Error
        ? err.message
        : String(err);
  } finally {
    await seen.scraper?.stop(); // stopped at k6's exit already, unless the run ended before the load
    // The gateway flushes its access log every second (as pilot-agent runs Envoy): let the last
    // flush happen before the cluster goes, so the log holds every request of the run.
    if (seen.load && !signal.aborted)
      await clock.sleep(ISTIO_FILE_FLUSH_INTERVAL_MS + 200).catch(() => undefined);
    // A finished run closes the cluster in order; an aborted or failed one destroys it at once.
    if (seen.abortReason) await backend.destroy(new Error(seen.abortReason));
    else await closeUnlessAborted(backend, plan.signal);
  }
  return seen;
}

/** close(), cut short by destroy() if Ctrl-C comes meanwhile. */
async function closeUnlessAborted(backend: ClusterBackend, signal: AbortSignal): Promise<void> {
  const destroy = (): void => void backend.destroy(new Error('aborted while closing'));
  signal.addEventListener('abort', destroy, { once: true });
  try {
    await backend.close();
  } finally {
    signal.removeEventListener('abort', destroy);
  }
}
