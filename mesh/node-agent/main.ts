// istio-cni's node agent for a real cluster (the kind backend's istio-cni DaemonSet: privileged, in
// the node's network and PID namespaces, as istio-cni's pods are). It installs the CNI plugin into
// the node (cni-plugin.ts), serves the plugin's ADD on /var/run/istio-cni/pluginevent.sock, serves
// the node agent protocol (protocol.ts) on the ZDS socket the node's ztunnel instances connect to,
// and enrols the node's ambient pods (kube-node-agent.ts). Configuration from the environment:
//   NODE_NAME      the node whose pods it serves (the downward API's spec.nodeName)
//   ZDS_SOCKET     default /var/run/ztunnel/ztunnel.sock (a hostPath both DaemonSets mount)
//   CNI_BIN_DIR    default /host/opt/cni/bin (the node's, mounted)
//   CNI_CONF_DIR   default /host/etc/cni/net.d (the node's, mounted)
//   NETNS_DIR      default /var/run/netns (the node's namespace pins, mounted HostToContainer)
//   ZTUNNEL_PROTOCOL  ours (default: our ztunnel's JSON-lines form, protocol.ts) | zds (istio/ztunnel's
//                  binary: istio-cni's ZDS, each pod's network namespace passed as a file descriptor,
//                  through the zds-relay helper at ZDS_RELAY, default /usr/local/bin/zds-relay)
//   POD_NAMESPACE  its own namespace (the downward API), where its DaemonSet is
//   DAEMONSET_NAME default istio-cni-node (upstream: "istio-cni" + "-node")
//   KUBECONFIG     optional; in a pod the service account's in-cluster config is used
// One line per enrolment and removal on stdout. SIGTERM closes it; the CNI plugin is left on the
// node while its DaemonSet remains (a restart or an upgrade: the next agent takes over) and removed
// when the DaemonSet is gone or going, so that pods then start outside the mesh rather than with a
// plugin whose agent never comes back (cni/pkg/cmd/root.go, nodeagent/server.go ShouldStopCleanup).
import { rm } from 'node:fs/promises';
import {
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { execa } from 'execa';
import { createLogger } from '../../lib/index.ts';
import { installCniPlugin, PLUGIN_EVENT_SOCKET, uninstallCniPlugin } from './cni-plugin.ts';
import { AMBIENT_REDIRECTION_ANNOTATION, AMBIENT_REDIRECTION_ENABLED } from '../workload.ts';
import {
  applyInpodCapture,
  HOST_PROBE_CHAIN,
  HOST_PROBE_CHAIN_SETUP,
  hostProbeRule,
} from './inpod-capture.ts';
import { createPodEnroller } from './kube-node-agent.ts';
import { startNodeAgentServer } from './node-agent-server.ts';
import type { NodeAgentServer } from './node-agent-server.ts';
import type { LocalWorkload } from '../workload.ts';
import { startSharedZdsNodeAgent } from './zds-agent-server.ts';
import { startPluginEventServer } from './plugin-event-server.ts';
import { findPodNetns } from './pod-netns.ts';

const log = createLogger({ component: 'istio-cni', write: (l) => process.stdout.write(`${l}\n`) });
const nodeName = process.env['NODE_NAME'] ?? '';
if (!nodeName) {
  process.stderr.write(
    'istio-cni: Expected NODE_NAME to be set (the downward API: spec.nodeName), got nothing\n',
  );
  process.exit(2);
}
const env = (name: string, fallback: string): string => process.env[name] || fallback;
const zdsSocket = env('ZDS_SOCKET', '/var/run/ztunnel/ztunnel.sock');
const ownDaemonSet = {
  namespace: env('POD_NAMESPACE', 'istio-system'),
  name: env('DAEMONSET_NAME', 'istio-cni-node'),
};
const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);

/**
 * Whether this agent's exit is for good: its DaemonSet gone, or being deleted (upstream's
 * ShouldStopCleanup answers "not an upgrade" so). Any other answer, an error included, keeps the plugin.
 */
async function daemonSetGoing(): Promise<boolean> {
  try {
    const ds = await apps.readNamespacedDaemonSet(ownDaemonSet);
    return Boolean(ds.metadata?.deletionTimestamp);
  } catch (err) {
    return (err as { code?: unknown }).code === 404;
  }
}
const cniDirs = {
  binDir: env('CNI_BIN_DIR', '/host/opt/cni/bin'),
  confDir: env('CNI_CONF_DIR', '/host/etc/cni/net.d'),
};
const pinDir = env('NETNS_DIR', '/var/run/netns');
const protocol = env('ZTUNNEL_PROTOCOL', 'ours');
if (protocol !== 'ours' && protocol !== 'zds') {
  process.stderr.write(
    `istio-cni: Expected ZTUNNEL_PROTOCOL to be ours or zds, got ${JSON.stringify(protocol)}\n`,
  );
  process.exit(2);
}
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function run(argv: readonly string[], okIfExists = false): Promise<void> {
  const [file = '', ...args] = argv;
  const done = await execa(file, args, { reject: false });
  if (done.exitCode !== 0 && !(okIfExists && /exists/i.test(done.stderr)))
    throw new Error(`${argv.join(' ')}: ${done.stderr.trim()}`);
}

// The node's probe chain, once (a restarted agent finds it there).
const chainThere = await execa('iptables', ['-t', 'nat', '-S', HOST_PROBE_CHAIN], { reject: false });
if (chainThere.exitCode !== 0) for (const argv of HOST_PROBE_CHAIN_SETUP) await run(argv, true);

// ztunnel is served only once the node's running pods are known: upstream builds its first snapshot
// from them before it listens (cni/pkg/nodeagent/server.go Start: ConstructInitialSnapshot, then the
// ZDS server), so a ztunnel reconnecting to a restarted agent never gets a snapshot without the
// pods it serves (it would drain them: statemanager.rs reconcile). Until then enrolments wait here.
const beforeServing = new Map<string, LocalWorkload>();
/** The ZDS server once it listens. */
const live: { server?: NodeAgentServer } = {};
const toServer: Pick<NodeAgentServer, 'addWorkload' | 'delWorkload'> = {
  addWorkload: (w) => {
    if (live.server) return live.server.addWorkload(w);
    beforeServing.set(w.uid, w);
    return Promise.resolve();
  },
  delWorkload: (uid, options) => {
    if (live.server) return live.server.delWorkload(uid, options);
    beforeServing.delete(uid);
    return Promise.resolve();
  },
};
const enroller = createPodEnroller({
  nodeName,
  server: toServer,
  log,
  now: () => Date.now(),
  findNetns: (uid) => findPodNetns(uid, { pinDir }),
  capture: async (netns, podIp) => {
    await applyInpodCapture((argv) => ['nsenter', `--net=${netns}`, '--', ...argv]);
    // A pod captured by the agent before a restart has its rule already.
    const [file = '', ...args] = hostProbeRule('-C', podIp);
    if ((await execa(file, args, { reject: false })).exitCode !== 0) await run(hostProbeRule('-A', podIp));
  },
  release: (podIp) => run(hostProbeRule('-D', podIp)),
  // A merge patch, as upstream's annotateEnrolledPod (null removes the key).
  annotate: async (pod, enabled) => {
    await core.patchNamespacedPod(
      {
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? 'default',
        body: {
          metadata: {
            annotations: { [AMBIENT_REDIRECTION_ANNOTATION]: enabled ? AMBIENT_REDIRECTION_ENABLED : null },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  },
});

const plugin = await startPluginEventServer(PLUGIN_EVENT_SOCKET, async (event) => {
  const pod = await core.readNamespacedPod({ name: event.podName, namespace: event.podNamespace });
  const podIp = event.ips[0];
  if (!podIp) throw new Error(`no IPv4 address for ${event.podNamespace}/${event.podName} in the CNI result`);
  await enroller.onCniAdd(pod, event.netns, podIp);
});

// The plugin into the node's chain, and back in whenever the primary CNI rewrites its config.
let chainedInto: string | undefined;
const install = async (): Promise<void> => {
  const path = await installCniPlugin(cniDirs);
  if (path && path !== chainedInto) log.info('CNI plugin chained', { conflist: path });
  chainedInto = path;
};
await install();
const reinstall = setInterval(() => {
  install().catch((err: unknown) => {
    log.warn('CNI plugin install failed', { error: errorText(err) });
  });
}, 2000);

// Every pod, filtered by node here (client-node's informer takes no field selector).
const pods = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
const report = (what: string) => (err: unknown) => {
  log.error(`${what} failed`, { error: errorText(err) });
};
pods.on('add', (pod) => void enroller.onPod(pod).catch(report('enrolment')));
pods.on('update', (pod) => void enroller.onPod(pod).catch(report('enrolment')));
pods.on('delete', (pod) => void enroller.onPodGone(pod).catch(report('removal')));
pods.on('error', (err: unknown) => {
  report('pod watch')(err);
  // client-node's informer stops on an error; start it again after a second, as a reflector does.
  setTimeout(() => void pods.start().catch(report('pod watch restart')), 1000);
});
await pods.start();
await enroller.idle();
// upstream removes a stale socket file before listening (ztunnelserver_linux.go).
await rm(zdsSocket, { force: true });
const serving: NodeAgentServer =
  protocol === 'zds'
    ? await startSharedZdsNodeAgent({
        relayBinary: env('ZDS_RELAY', '/usr/local/bin/zds-relay'),
        socketPath: zdsSocket,
        log,
        onEvent: (event) => {
          log.info('zds', { ...event });
        },
      })
    : await startNodeAgentServer(zdsSocket);
// In this turn, before any connection is read: every pod is in the first snapshot.
for (const w of beforeServing.values()) void serving.addWorkload(w);
beforeServing.clear();
live.server = serving;
log.info('started', { node: nodeName, socket: zdsSocket, protocol, plugin_socket: PLUGIN_EVENT_SOCKET });

process.once('SIGTERM', () => {
  void (async () => {
    clearInterval(reinstall);
    await pods.stop();
    await plugin.close();
    await serving.close();
    if (await daemonSetGoing()) {
      await uninstallCniPlugin(cniDirs).catch(report('CNI plugin removal'));
      log.info('CNI plugin removed: the DaemonSet is gone, this is no upgrade', {
        daemonset: ownDaemonSet.name,
      });
    } else log.info('CNI plugin left in place: the DaemonSet remains (an upgrade or a restart)');
    log.info('stopped', { node: nodeName });
    process.exit(0);
  })();
});
