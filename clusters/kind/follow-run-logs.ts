import { fromWallMs } from '../../lib/index.ts';
import { createEmitter } from '../events.ts';
import type { KindRun } from './kind-run.ts';
import type { KubeApi } from './kube-api.ts';
import { createLogEventMatcher } from './log-events.ts';
import { createLogFollowers } from './log-followers.ts';
import type { LogFollowers } from './log-followers.ts';

/**
 * Our containers' logs followed into logDir from their start (log-followers.ts), the lines that are
 * lifecycle events emitted on the run's clock at the lines' own times (log-events.ts), a follow cut
 * short told through onLogs.
 */
export function followRunLogs(run: KindRun, api: KubeApi): LogFollowers {
  const eventOf = createLogEventMatcher();
  const { clock, logDir, onLogs } = run.settings;
  return createLogFollowers({
    dir: logDir,
    logs: run.scope.logs,
    follow: (log, out) =>
      api.followPodLog({ ...log, ...(run.logsSince ? { sinceTime: run.logsSince } : {}) }, out),
    onLine: (container, line) => {
      const e = eventOf(container, line);
      if (e)
        createEmitter(run.events, clock, e.source)(e.kind, e.object, {
          detail: e.detail,
          ...(e.node ? { node: e.node } : {}),
          ...(e.wallMs === undefined ? {} : { atMs: fromWallMs(clock, e.wallMs) }),
        });
    },
    onError: (file, err) => {
      onLogs?.(
        `kind: ${file} not followed to its end: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    },
  });
}
