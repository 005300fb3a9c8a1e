type Row = Record<string, string | number>;

/** The moment the fault was applied, and how to name it on a plot (`restart ztunnel`). */
export interface FaultStart {
  t_s: number;
  label: string;
}

/** `restart ztunnel`, `scale httpbin to 3`: a rollout-started event's detail and its workload's name. */
function faultLabel(object: string, detail: string): string {
  const name = object.split('/').pop() ?? object;
  if (detail === 'rollout restart') return `restart ${name}`;
  const scale = /^scale to (\d+)$/.exec(detail);
  if (scale) return `scale ${name} to ${scale[1] ?? ''}`;
  return `${detail || 'rollout'} ${name}`;
}

const asSeconds = (v: string | number | undefined): number | undefined =>
  v === undefined || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v);

/**
 * The fault's start: the backend's first `rollout-started` event (the restart or scale call), else the
 * summary's rollout_started_s (the harness's own record of it), else --restart-at; undefined for a
 * run with no fault.
 */
export function faultStartOf(events: readonly Row[], row: Row = {}): FaultStart | undefined {
  const started = events
    .filter((e) => e['kind'] === 'rollout-started')
    .sort((a, b) => Number(a['t_s']) - Number(b['t_s']))[0];
  if (started)
    return {
      t_s: Number(started['t_s']),
      label: faultLabel(String(started['object']), String(started['detail'] ?? '')),
    };
  const rolloutS = asSeconds(row['rollout_started_s']);
  if (rolloutS !== undefined) return { t_s: rolloutS, label: 'fault (rollout started)' };
  const restartS = asSeconds(row['restart_at_s']);
  if (restartS !== undefined) return { t_s: restartS, label: 'fault (--restart-at)' };
  return undefined;
}
