// Running one named step and timing it, the core every bring-up shares (kind's create times each
// action the same way: pkg/cluster/internal/create/create.go, `ctx.Status.Start(...)` / `End(ok)`).
// The two runners differ only around it: kind's and the existing backend's steps run commands into
// a log file of their own and steps.csv (step-runner.ts); the local cluster's steps are in-process
// and time themselves on the run's injected clock, writing no files (clusters/local/up/steps.ts).

export interface StepTime {
  name: string;
  /** On the clock the runner was given (`now`), in its milliseconds. */
  ms: number;
}

/** A step's end as it is reported: its time, and whether its body resolved. */
export interface StepEnd extends StepTime {
  ok: boolean;
}

export interface TimedStepOptions<T> {
  name: string;
  /** The clock the step is timed on, in milliseconds. */
  now: () => number;
  body: () => Promise<T>;
  /** Told once when the body has settled, resolved or not; its error then goes on as it was. */
  onEnd: (end: StepEnd) => void;
}

/** Runs the step's body, timing it from start to settle, and reports the time to `onEnd`. */
export async function runTimedStep<T>(options: TimedStepOptions<T>): Promise<T> {
  const startedMs = options.now();
  let ok = false;
  try {
    const result = await options.body();
    ok = true;
    return result;
  } finally {
    options.onEnd({ name: options.name, ms: options.now() - startedMs, ok });
  }
}
