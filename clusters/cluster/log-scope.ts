// What of a user's cluster's logs a run keeps in its folder (run folders get shared and uploaded):
// its own pods' logs whole; of Istio's pods (ztunnel, istiod, istio-cni, the gateway's pods) the
// lines that concern the run, which are those that name it (its namespace, its host, one of its
// pods' addresses) and those that name no one (a component's own lifecycle: a drain, a push, a
// config load); a line that names another namespace or an address that is neither the run's nor
// the infrastructure's (nodes, Istio's pods, the gateway's Service) is another tenant's and is
// dropped. No other pod's logs are kept. `--all-istio-logs` keeps Istio's namespaces' pods whole.
import type { V1Pod } from '@kubernetes/client-node';
import type { LogScope } from '../kind/run-scope.ts';

/** Istio's pods whose lines a run may need (the chart's labels), the gateway's by its selector. */
const ISTIO_APPS: [string, string][] = [
  ['app', 'ztunnel'],
  ['app', 'istiod'],
  ['k8s-app', 'istio-cni-node'],
];

export interface LogScopeInput {
  runNamespace: string;
  istioNamespace: string;
  gatewayNamespace: string;
  /** The gateway Service's selector, once the preflight read it. */
  gatewaySelector: () => Record<string, string> | undefined;
  /** The run's Host (its route). */
  host: string;
  /** Addresses the watch has seen: pods (with their namespaces), nodes, Services. */
  addresses: () => { pods: V1Pod[]; nodeIps: string[]; serviceIps: string[] };
  /** Moves on every watch update: the addresses are read again only then, not per log line. */
  watchVersion: () => number;
  /** --all-istio-logs: Istio's pods kept whole. */
  allIstioLogs: boolean;
}

const IPV4 = /\b(\d{1,3}(?:\.\d{1,3}){3})\b/g;
/**
 * Where a line names a namespace: ztunnel's `namespace="x"`, JSON's `"namespace":"x"`, an identity's
 * `/ns/x/`, a host's `.x.svc`, istiod's `Kind/x/name` and proxy ids `node:pod.x`.
 */
const NAMESPACE_MENTIONS = [
  /\bnamespace"?[=:]\s*"?([a-z0-9][-a-z0-9]*)/g,
  /\/ns\/([a-z0-9][-a-z0-9]*)\//g,
  /\.([a-z0-9][-a-z0-9]*)\.svc\b/g,
  /\b[A-Z][A-Za-z]+\/([a-z0-9][-a-z0-9]*)\/[a-z0-9]/g,
  /\bnode:[a-z0-9][-a-z0-9]*\.([a-z0-9][-a-z0-9]*)/g,
];

const matches = (re: RegExp, line: string): string[] => [...line.matchAll(re)].map((m) => m[1] ?? '');

export function createLogScope(input: LogScopeInput): LogScope {
  const runIps = new Set<string>();
  const isIstioPod = (pod: V1Pod): boolean => {
    const ns = pod.metadata?.namespace ?? '';
    const labels = pod.metadata?.labels ?? {};
    if (ns === input.istioNamespace && ISTIO_APPS.some(([k, v]) => labels[k] === v)) return true;
    const selector = input.gatewaySelector();
    return (
      ns === input.gatewayNamespace &&
      selector !== undefined &&
      Object.keys(selector).length > 0 &&
      Object.entries(selector).every(([k, v]) => labels[k] === v)
    );
  };
  let cached: { version: number; ips: Set<string> } | undefined;
  const known = (): Set<string> => {
    const version = input.watchVersion();
    if (cached?.version === version) return cached.ips;
    const { pods, nodeIps, serviceIps } = input.addresses();
    const ips = new Set<string>([...nodeIps, ...serviceIps]);
    for (const pod of pods) {
      const ip = pod.status?.podIP;
      if (!ip) continue;
      // A run pod's address stays the run's after the pod is gone (its lines come later).
      if (pod.metadata?.namespace === input.runNamespace) runIps.add(ip);
      else if (isIstioPod(pod)) ips.add(ip);
    }
    for (const ip of runIps) ips.add(ip);
    cached = { version, ips };
    return ips;
  };
  const ownNamespaces = new Set([input.runNamespace, input.istioNamespace, input.gatewayNamespace]);
  return {
    of(pod) {
      if (pod.metadata?.namespace === input.runNamespace) return 'whole';
      if (!isIstioPod(pod))
        return input.allIstioLogs && ownNamespaces.has(pod.metadata?.namespace ?? '') ? 'whole' : 'none';
      return input.allIstioLogs ? 'whole' : 'lines';
    },
    keeps(line) {
      if (line.includes(input.runNamespace) || line.includes(input.host)) return true;
      const ips = matches(IPV4, line).filter((ip) => ip !== '0.0.0.0' && !ip.startsWith('127.'));
      if (ips.length > 0) {
        const ours = known();
        if (ips.some((ip) => runIps.has(ip))) return true;
        if (!ips.every((ip) => ours.has(ip))) return false;
      }
      return NAMESPACE_MENTIONS.flatMap((re) => matches(re, line)).every((ns) => ownNamespaces.has(ns));
    },
  };
}
