// E3's long-lived client as a pod outside the mesh (the kind backend runs it: kind's pod addresses
// are reachable only from inside the cluster; the local backend runs the same connections in the
// harness's process). It opens the connections at once and keeps them until SIGTERM, then writes one
// line, `long-lived-result <JSON>`, every connection's life with Unix-millisecond times (the node's
// clock is the host's: kind's nodes are containers), and exits 0. Environment:
//   LONG_LIVED  JSON {"targets":[{host,port,pod,node}],"count":N,"intervalMs":N}
import { createSystemClock, toWallMs } from '../../lib/index.ts';
import { LONG_LIVED_RESULT, parseLongLivedConfig } from './long-lived-config.ts';
import { startLongLivedConnections } from './long-lived-connections.ts';

const config = parseLongLivedConfig(process.env['LONG_LIVED']);
if (typeof config === 'string') {
  process.stderr.write(`long-lived-client: ${config}\n`);
  process.exit(2);
}
const clock = createSystemClock();
const connections = startLongLivedConnections({ ...config, clock });
process.stdout.write(
  `long-lived-client: ${String(config.count)} connections to ${config.targets.map((t) => `${t.pod} ${t.host}:${String(t.port)}`).join(', ')}, a request every ${String(config.intervalMs)} ms on each\n`,
);
process.once('SIGTERM', () => {
  void connections.stop().then((lives) => {
    const wall = lives.map((l) => ({
      ...l,
      openedAtMs: toWallMs(clock, l.openedAtMs),
      ...(l.endedAtMs === undefined ? {} : { endedAtMs: toWallMs(clock, l.endedAtMs) }),
    }));
    process.stdout.write(`${LONG_LIVED_RESULT} ${JSON.stringify(wall)}\n`, () => process.exit(0));
  });
});
