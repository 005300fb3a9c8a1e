// E5's columns (empty without a meshed client): seed 003's metrics, see drain-option-metrics.ts.
import type { Cell } from './column.ts';
import { section } from './column.ts';
import type { RowInput } from './row-input.ts';

export const DRAIN_OPTION_SECTION = section(
  {
    client_requests: "E5: the meshed client's requests",
    client_failed: "E5: the meshed client's failures",
    stale_hbone_connections: 'E5: pooled HBONE connections left to a pod that is gone',
    stale_linger_max_ms: 'E5: how long the longest of them lingered, ms',
    stale_open_at_end: 'E5: stale connections still open at the end',
    pings_after_gone: 'E5: HTTP/2 PINGs sent to a pod after it was gone',
    ping_timeouts: 'E5: keepalive ping timeouts',
    hbone_opened_while_terminating: 'E5: new HBONE connections opened while the pod terminated',
    app_connections_while_terminating: 'E5: app connections made while the pod terminated',
    close_notify_sent: 'E5: TLS close_notify sent on HBONE connections',
    client_ztunnel_cpu_avg_pct: "E5: the client node's ztunnel CPU, mean % of one core",
  },
  ({ facts }: RowInput) => {
    const m = facts.drainOptions;
    const v = (x: number | undefined, digits = 0): Cell =>
      m === undefined || x === undefined ? '' : Number(x.toFixed(digits));
    return {
      client_requests: v(m?.clientRequests),
      client_failed: v(m?.clientFailed),
      stale_hbone_connections: v(m?.staleConnections),
      stale_linger_max_ms: v(m?.staleLingerMaxMs),
      stale_open_at_end: v(m?.staleOpenAtEnd),
      pings_after_gone: v(m?.pingsAfterGone),
      ping_timeouts: v(m?.pingTimeouts),
      hbone_opened_while_terminating: v(m?.hboneOpenedWhileTerminating),
      app_connections_while_terminating: v(m?.appConnectionsWhileTerminating),
      close_notify_sent: v(m?.closeNotifySent),
      client_ztunnel_cpu_avg_pct: v(m?.clientZtunnelCpuPct, 1),
    };
  },
);
