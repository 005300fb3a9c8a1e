// istio-cni's in-pod traffic capture, set up inside a pod's network namespace as istio-cni's node
// agent does when a pod joins the ambient mesh (istio/istio cni/pkg/iptables/iptables.go
// `CreateInpodRules` 168-187, `AppendInpodRules` 189-435; the rule set is its test's golden file
// cni/pkg/iptables/testdata/default.golden, istio/istio 86c9f01f, DNS capture on as the chart's default):
//   - inbound: every TCP connection to the pod (not to 127.0.0.1, not to the HBONE port 15008, not
//     from the kubelet's probe address) is REDIRECTed to ztunnel's plaintext inbound port 15006;
//   - outbound: every TCP connection the pod makes (not to 127.0.0.1, not over lo) is REDIRECTed to
//     ztunnel's outbound port 15001, DNS (53) to 15053;
//   - ztunnel's own sockets carry the mark 1337 (0x539, SO_MARK; istio/ztunnel src/inpod/config.rs)
//     and are never redirected; mangle turns that mark into the connmark 0x111 for the replies, and
//     `ip rule fwmark 0x111/0xfff lookup 100` with `local 0.0.0.0/0 dev lo table 100` routes them
//     back into the pod (`AddInpodMarkIPRule`, `AddLoopbackRoutes`: iptables_linux.go 22-128).
// The kubelet's probes are SNATed on the node to 169.254.7.127 (HOST_PROBE_SNAT_ADDRESS) and let
// through untouched; here the prober binds that address itself (the network world puts it on the
// host's link), which is what the SNAT achieves.
import { execa } from 'execa';

/** istio-cni's HOST_PROBE_SNAT_ADDRESS default (cni/pkg/config/config.go): the kubelet's probes come from it. */
export const HOST_PROBE_ADDRESS = '169.254.7.127';

/** The ports ztunnel's in-pod listeners take (istio/ztunnel src/config.rs; istio-cni's ZtunnelInboundPort etc.). */
export const INPOD_PORTS = { inboundPlaintext: 15006, outbound: 15001, hbone: 15008, dns: 15053 } as const;

const MARK = '0x539/0xfff';
const TPROXY_MARK = '0x111/0xfff';
const ROUTE_TABLE = '100';

/** The iptables-restore input istio-cni applies in a pod's namespace (IPv4; testdata/default.golden). */
export function inpodRules(): string {
  const { inboundPlaintext, outbound, hbone, dns } = INPOD_PORTS;
  return [
    '*mangle',
    ':ISTIO_PRERT - [0:0]',
    ':ISTIO_OUTPUT - [0:0]',
    '-A PREROUTING -j ISTIO_PRERT',
    '-A OUTPUT -j ISTIO_OUTPUT',
    `-A ISTIO_PRERT -m mark --mark ${MARK} -j CONNMARK --set-xmark ${TPROXY_MARK}`,
    `-A ISTIO_OUTPUT -m connmark --mark ${TPROXY_MARK} -j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff`,
    'COMMIT',
    '*nat',
    ':ISTIO_PRERT - [0:0]',
    ':ISTIO_OUTPUT - [0:0]',
    '-A OUTPUT -j ISTIO_OUTPUT',
    '-A PREROUTING -j ISTIO_PRERT',
    `-A ISTIO_PRERT -s ${HOST_PROBE_ADDRESS} -p tcp -m tcp -j ACCEPT`,
    `-A ISTIO_OUTPUT -d ${HOST_PROBE_ADDRESS} -p tcp -m tcp -j ACCEPT`,
    `-A ISTIO_PRERT ! -d 127.0.0.1/32 -p tcp ! --dport ${String(hbone)} -m mark ! --mark ${MARK} -j REDIRECT --to-ports ${String(inboundPlaintext)}`,
    `-A ISTIO_OUTPUT ! -o lo -p udp -m mark ! --mark ${MARK} -m udp --dport 53 -j REDIRECT --to-port ${String(dns)}`,
    `-A ISTIO_OUTPUT ! -d 127.0.0.1/32 -p tcp --dport 53 -m mark ! --mark ${MARK} -j REDIRECT --to-ports ${String(dns)}`,
    `-A ISTIO_OUTPUT -p tcp -m mark --mark ${TPROXY_MARK} -j ACCEPT`,
    '-A ISTIO_OUTPUT ! -d 127.0.0.1/32 -o lo -j ACCEPT',
    `-A ISTIO_OUTPUT ! -d 127.0.0.1/32 -p tcp -m mark ! --mark ${MARK} -j REDIRECT --to-ports ${String(outbound)}`,
    'COMMIT',
    '*raw',
    ':ISTIO_OUTPUT - [0:0]',
    ':ISTIO_PRERT - [0:0]',
    '-A PREROUTING -j ISTIO_PRERT',
    '-A OUTPUT -j ISTIO_OUTPUT',
    `-A ISTIO_OUTPUT -p udp -m mark --mark ${MARK} -m udp --dport 53 -j CT --zone 1`,
    `-A ISTIO_PRERT -p udp -m mark ! --mark ${MARK} -m udp --sport 53 -j CT --zone 1`,
    'COMMIT',
    '',
  ].join('\n');
}

/**
 * The routing istio-cni adds beside the rules (ip rule and the local route of table 100). Both may be
 * there already, from an earlier agent on the node (istio-cni restarted): upstream ignores EEXIST on
 * the rule and replaces the route (cni/pkg/iptables/iptables_linux.go AddInpodMarkIPRule,
 * AddLoopbackRoutes with netlink.RouteReplace).
 */
export const INPOD_ROUTING: readonly string[][] = [
  ['ip', 'rule', 'add', 'fwmark', TPROXY_MARK, 'pref', '32764', 'lookup', ROUTE_TABLE],
  ['ip', 'route', 'replace', 'local', '0.0.0.0/0', 'dev', 'lo', 'table', ROUTE_TABLE],
];

/** The jump that says the pod's rules are in place (the nat table's entry into ours). */
const RULES_PRESENT = ['iptables', '-t', 'nat', '-C', 'PREROUTING', '-j', 'ISTIO_PRERT'];

/**
 * Applies the capture inside a namespace; `inNs(argv)` is the argv that runs `argv` there. Fails
 * with iptables-restore's own message when the rules are refused. A pod captured by an earlier agent
 * (istio-cni restarted while its pods run) keeps its rules: they are not applied twice.
 */
export async function applyInpodCapture(inNs: (argv: string[]) => string[]): Promise<void> {
  const run = (argv: string[], input?: string) => {
    const [file = '', ...args] = inNs(argv);
    return execa(file, args, { reject: false, ...(input === undefined ? {} : { input }) });
  };
  if ((await run(RULES_PRESENT)).exitCode !== 0) {
    const restored = await run(['iptables-restore', '--noflush'], inpodRules());
    if (restored.exitCode !== 0)
      throw new Error(`iptables-restore in the pod's namespace failed: ${restored.stderr.trim()}`);
  }
  for (const argv of INPOD_ROUTING) {
    const done = await run(argv);
    if (done.exitCode !== 0 && !/File exists/.test(done.stderr))
      throw new Error(`${argv.join(' ')} in the pod's namespace: ${done.stderr.trim()}`);
  }
}

/** Why the capture cannot be set up here (no iptables-restore), or undefined when it can. */
export async function inpodCaptureUnavailable(): Promise<string | undefined> {
  const found = await execa('sh', ['-c', 'command -v iptables-restore'], { reject: false });
  return found.exitCode === 0
    ? undefined
    : 'iptables-restore is not installed (the iptables package provides it)';
}

/** The node's chain for the kubelet's probes (istio-cni's ISTIO_POSTRT in the host's nat table). */
export const HOST_PROBE_CHAIN = 'ISTIO_POSTRT';

/**
 * The node's side of the probe bypass, run in the node's network namespace: the chain, hooked into
 * nat POSTROUTING once (istio-cni's `CreateHostRulesForHealthChecks`, cni/pkg/iptables/iptables.go).
 */
export const HOST_PROBE_CHAIN_SETUP: readonly (readonly string[])[] = [
  ['iptables', '-t', 'nat', '-N', HOST_PROBE_CHAIN],
  ['iptables', '-t', 'nat', '-I', 'POSTROUTING', '-j', HOST_PROBE_CHAIN],
];

/**
 * The rule that SNATs the node's own connections to a captured pod (the kubelet's probes: `-m owner
 * --socket-exists` matches only sockets of this namespace's processes) to HOST_PROBE_ADDRESS, which
 * the pod's rules let through untouched. Upstream matches an ipset of the node's captured pods
 * (`istio-inpod-probes-v4`); here one rule per pod, added with `-A` (unless `-C` finds it there: an
 * earlier agent's) and removed with `-D`.
 */
export function hostProbeRule(action: '-A' | '-C' | '-D', podIp: string): string[] {
  return [
    'iptables',
    '-t',
    'nat',
    action,
    HOST_PROBE_CHAIN,
    '-d',
    `${podIp}/32`,
    '-p',
    'tcp',
    '-m',
    'owner',
    '--socket-exists',
    '-j',
    'SNAT',
    '--to-source',
    HOST_PROBE_ADDRESS,
  ];
}
