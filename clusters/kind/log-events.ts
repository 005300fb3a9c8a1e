// The lines of our containers' logs that are lifecycle events on kind, as the local backend's
// images declare theirs (clusters/local/images.ts logEvents), stamped with the line's own time (the
// followed log, log-followers.ts): ztunnel's drain deadline (ours, or istio/ztunnel's binary's), once
// per container; and istio-cni's enrolment of each pod, the node agent's add of the workload, which
// names the pod's IP and node (what the judge maps a gateway upstream to its node with, as the local
// backend's pod-created does); and go-httpbin's own line at SIGTERM, the pod's termination as the app
// met it (the harness's watch of the API server can see the deletion after that: measured in
// docs/findings, issue 58).
import { DRAIN_DEADLINE_REACHED } from '../../ztunnel/telemetry/log-messages.ts';
import type { EventSource, LifecycleEventKind } from '../events.ts';
import { IMAGES, ISTIO_ZTUNNEL_IMAGE_REPOSITORY } from '../manifests/index.ts';
import type { FollowedContainer } from './log-followers.ts';

interface LogEventSpec {
  /** The container's image, or its repository (any tag) where the tag varies. */
  image: string | { repository: string };
  pattern: RegExp;
  kind: LifecycleEventKind;
  source?: EventSource;
  /** The event's object and detail from the line, where it is about another pod than the container's. */
  about?: (line: string) => { object: string; detail: string } | undefined;
  /** Every matching line is an event (default: the first per container and object). */
  everyLine?: true;
}

/**
 * ztunnel's xDS client receiving a removal of workloads: istio/ztunnel's src/xds/client.rs line
 * (`received response type_url="type.googleapis.com/istio.workload.Address" size=N removes=M`), and
 * ours written the same way (ztunnel/main.ts, naming the workloads).
 */
const ADDRESS_REMOVAL =
  /\breceived response\b.*type_url="type\.googleapis\.com\/istio\.workload\.Address".*\bremoves=[1-9]/;

/** `key=value` or `key="value"` of one of our log lines. */
const field = (line: string, key: string): string | undefined =>
  new RegExp(String.raw`(?:^|\s)${key}="?([^"\s]+)"?`).exec(line)?.[1];

/**
 * go-httpbin's line when SIGTERM or SIGINT arrives, before it stops accepting (httpbin/cmd/cmd.go
 * listenAndServeGracefully: `logger.Info("shutting down ...")`, then `srv.Shutdown`).
 */
const GO_HTTPBIN_SIGNALLED = /\bmsg="shutting down \.\.\."/;

const LOG_EVENTS: readonly LogEventSpec[] = [
  { image: IMAGES.httpbin, pattern: GO_HTTPBIN_SIGNALLED, kind: 'sigterm' },
  // The fault server in httpbin's place (--app-shutdown echo): apps/fault-server/main.ts.
  { image: IMAGES.faultServer, pattern: /\breceived SIGTERM\b/, kind: 'sigterm' },
  {
    image: IMAGES.ztunnel,
    pattern: new RegExp(String.raw`\b${DRAIN_DEADLINE_REACHED}\b`),
    kind: 'drain-deadline',
  },
  {
    // istio/ztunnel's binary (--ztunnel-impl istio-shared): src/drain.rs run_with_drain at the
    // deadline, when connections were left; one line per workload proxy, all at the one deadline.
    image: { repository: ISTIO_ZTUNNEL_IMAGE_REPOSITORY },
    pattern: /drain duration expired with pending connections/,
    kind: 'drain-deadline',
  },
  { image: IMAGES.ztunnel, pattern: ADDRESS_REMOVAL, kind: 'address-removal-received', everyLine: true },
  {
    image: { repository: ISTIO_ZTUNNEL_IMAGE_REPOSITORY },
    pattern: ADDRESS_REMOVAL,
    kind: 'address-removal-received',
    everyLine: true,
  },
  {
    image: IMAGES.cni,
    pattern: /\bpod enrolled\b/,
    kind: 'add-workload',
    source: 'node-agent',
    about: (line) => {
      const [namespace, name, ip] = [field(line, 'namespace'), field(line, 'name'), field(line, 'pod_ip')];
      return namespace && name && ip
        ? { object: `${namespace}/${name}`, detail: `${ip} enrolled (${field(line, 'via') ?? ''})` }
        : undefined;
    },
  },
];

/** The image as named, or mirrored in a user's registry (`<registry>/<name>:<tag>`, images.ts). */
const isImage = (spec: LogEventSpec['image'], image: string): boolean =>
  typeof spec === 'string'
    ? image === spec || image.endsWith(`/${spec}`)
    : image.startsWith(`${spec.repository}:`);

/** A line's leading time: ours and ztunnel's start with an ISO time, Go's slog text with `time=`. */
function leadingWallMs(line: string): number | undefined {
  const first = line.slice(0, line.search(/\s|$/)).replace(/^time=/, '');
  const ms = Date.parse(first);
  return Number.isFinite(ms) ? ms : undefined;
}

export interface LogEvent {
  kind: LifecycleEventKind;
  source: EventSource;
  /** `namespace/pod` */
  object: string;
  node: string | undefined;
  /** The line's own leading time (an ISO timestamp, or slog's `time=`), if it has one. */
  wallMs: number | undefined;
  detail: string;
}

/** A matcher that turns each matching line into an event, once per container and object. */
export function createLogEventMatcher(): (
  container: FollowedContainer,
  line: string,
) => LogEvent | undefined {
  const seen = new Set<string>();
  return (container, line) => {
    const match = LOG_EVENTS.find((e) => isImage(e.image, container.image) && e.pattern.test(line));
    if (!match) return undefined;
    const about = match.about
      ? match.about(line)
      : { object: `${container.log.namespace}/${container.log.pod}`, detail: line.trim().slice(0, 200) };
    if (!about) return undefined;
    const { namespace, pod, container: name } = container.log;
    const key = `${namespace}/${pod}/${name}/${match.kind}/${about.object}`;
    if (!match.everyLine && seen.has(key)) return undefined;
    seen.add(key);
    return {
      kind: match.kind,
      source: match.source ?? 'container-log',
      ...about,
      node: container.node,
      wallMs: leadingWallMs(line),
    };
  };
}
