// The figures a mechanism gives, gated beside the counts: each should not move with the machine,
// where a count does (E1's count follows T_past, which CPU contention stretches; E2's follows the
// removal lag). docs/guide/comparing-runs.md says why each is here and how its tolerance was chosen.

export interface GateFigure {
  metric: string;
  unit: 'ms' | 'ratio';
  /** 'higher': a rise is a regression; 'either': the figure should not move at all. */
  worse: 'higher' | 'either';
  /** The smallest change that fails the gate, in the figure's unit, however significant. */
  tolerance: number;
  /** The run's value, or undefined where the run does not give it (another scenario, no capture). */
  value(values: Readonly<Record<string, string>>): number | undefined;
}

const num = (values: Readonly<Record<string, string>>, name: string): number | undefined => {
  const raw = values[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * E1's reset prediction under which the ratio is read: below it the Poisson noise of a single run's
 * count (relative sd 1/sqrt(predicted)) is above 0.32 and a ratio says little.
 */
export const MIN_PREDICTED_FOR_RATIO = 10;

export const GATE_FIGURES: readonly GateFigure[] = [
  {
    // deadline_accounted / deadline_predicted: 1 while the deadline mechanism explains the loss,
    // whatever T_past the machine gives. A larger ratio is loss the mechanism does not explain.
    metric: 'lost_over_predicted',
    unit: 'ratio',
    worse: 'higher',
    tolerance: 0.25,
    value: (v) => {
      const accounted = num(v, 'deadline_accounted');
      const predicted = num(v, 'deadline_predicted');
      if (accounted === undefined || predicted === undefined || predicted < MIN_PREDICTED_FOR_RATIO)
        return undefined;
      return accounted / predicted;
    },
  },
  {
    // From the old ztunnel's SIGTERM to its drain deadline: set by the grace period (upstream's
    // self_termination_deadline), a timer; it moves only when ztunnel's deadline logic does.
    metric: 'deadline_after_sigterm_ms',
    unit: 'ms',
    worse: 'either',
    tolerance: 200,
    value: (v) => num(v, 'deadline_after_sigterm_ms'),
  },
  {
    // Of the HBONE connections the deadlines closed, the share the gateway received as a RST
    // (tcpdump): a FIN lets the gateway finish what ztunnel already answered.
    metric: 'deadline_rst_share',
    unit: 'ratio',
    worse: 'higher',
    tolerance: 0.2,
    value: (v) => {
      const fin = num(v, 'deadline_wire_fin');
      const rst = num(v, 'deadline_wire_rst');
      if (fin === undefined || rst === undefined || fin + rst === 0) return undefined;
      return rst / (fin + rst);
    },
  },
  {
    // E2: a terminating pod's app exit to ztunnel's removal of it (the 1.28 report's lag).
    metric: 'removal_lag_ms',
    unit: 'ms',
    worse: 'higher',
    tolerance: 250,
    value: (v) => num(v, 'removal_lag_ms'),
  },
  {
    // E2: how far the longest burst outlasts the longest removal lag (0 when within it): failures
    // after the mesh knew the pod was gone.
    metric: 'burst_beyond_lag_ms',
    unit: 'ms',
    worse: 'higher',
    tolerance: 500,
    value: (v) => {
      const lag = num(v, 'removal_lag_max_ms');
      const burst = num(v, 'max_burst_ms');
      return lag === undefined || burst === undefined ? undefined : Math.max(0, burst - lag);
    },
  },
];
