// The preflight's verdict on an existing cluster (issue 45): each thing a run needs, whether the
// cluster has it, and what to do where it does not. Pure: the facts come from cluster-facts.ts.
import { imageVersion } from './cluster-facts.ts';
import type { ClusterFacts, ComponentFacts } from './cluster-facts.ts';

export interface ClusterCheck {
  what: string;
  ok: boolean;
  /** What was found (a version, an image, a count), or what is missing. */
  detail: string;
  /** Where it is missing: what to do. */
  fix?: string;
  /** Needed only by this experiment (E1 restarts the cluster's ztunnel). */
  onlyFor?: 'E1';
}

const component = (what: string, c: ComponentFacts | undefined, kind: string, fix: string): ClusterCheck =>
  c
    ? {
        what,
        ok: c.ready > 0 && c.ready >= c.desired,
        detail: `${kind} ${c.namespace}/${c.name}: ${c.image} (version ${imageVersion(c.image)}), ${String(c.ready)}/${String(c.desired)} ready`,
        ...(c.ready > 0 && c.ready >= c.desired ? {} : { fix: `wait until every ${c.name} pod is Ready` }),
      }
    : { what, ok: false, detail: 'not found', fix };

/**
 * The run routes the gateway to its own httpbin with an Istio Gateway and VirtualService (what
 * istio-ingressgateway serves); a cluster with only Gateway API's HTTPRoute is not run yet.
 */
function routeCheck(routeApis: readonly string[]): ClusterCheck {
  const ok = routeApis.includes('networking.istio.io');
  return {
    what: 'a route to the run',
    ok,
    detail: routeApis.length
      ? `served: ${routeApis.join(', ')}`
      : 'neither networking.istio.io (VirtualService) nor gateway.networking.k8s.io (HTTPRoute) is served',
    ...(ok
      ? {}
      : {
          fix: "install Istio's CRDs (its base chart): the run routes the gateway to its own httpbin with a Gateway and a VirtualService (HTTPRoute alone is not supported yet)",
        }),
  };
}

/**
 * The gateway the run's route is published on: port 80, a Ready pod, and a pod selector. The run's
 * Istio Gateway selects the gateway's pods by that selector; an empty one (a Service without a
 * selector) would attach the run's route to every gateway of the mesh.
 */
function gatewayCheck(gw: NonNullable<ClusterFacts['gateway']>): ClusterCheck {
  const selector = Object.entries(gw.selector).map(([k, v]) => `${k}=${v}`);
  const fix =
    selector.length === 0
      ? `the Service has no pod selector: the run's Gateway would select every gateway of the mesh; name a gateway Service with a selector (--gateway <namespace>/<service>)`
      : gw.readyEndpoints > 0 && gw.ports.includes(80)
        ? undefined
        : 'the gateway needs port 80 and a Ready pod behind it (--gateway <namespace>/<service> to use another)';
  return {
    what: 'ingress gateway',
    ok: fix === undefined,
    detail: `Service ${gw.namespace}/${gw.name} ${gw.clusterIp} ports ${gw.ports.join(',')}; ${String(gw.readyEndpoints)} ready endpoints; selector ${selector.join(',') || '(none)'}`,
    ...(fix ? { fix } : {}),
  };
}

export function clusterChecks(facts: ClusterFacts): ClusterCheck[] {
  const ns = facts.istioNamespace;
  const gw = facts.gateway;
  const checks: ClusterCheck[] = [
    {
      what: 'Kubernetes',
      ok: true,
      detail: `${facts.kubernetesVersion} at ${facts.server} (context ${facts.context})`,
    },
    component(
      "Istio's control plane",
      facts.istiod,
      'Deployment',
      `install Istio (istiod: a Deployment labelled app=istiod in ${ns}), or name Istio's namespace with --istio-namespace`,
    ),
    component(
      'ambient: ztunnel',
      facts.ztunnel,
      'DaemonSet',
      `install Istio's ambient profile (the ztunnel DaemonSet in ${ns}: istioctl install --set profile=ambient, or the ztunnel chart)`,
    ),
    component(
      'ambient: istio-cni',
      facts.istioCni,
      'DaemonSet',
      `install Istio's ambient profile (the istio-cni-node DaemonSet in ${ns}: the cni chart with profile=ambient)`,
    ),
    gw
      ? gatewayCheck(gw)
      : {
          what: 'ingress gateway',
          ok: false,
          detail: 'not found',
          fix: 'name the gateway Service to use with --gateway <namespace>/<service> (default istio-system/istio-ingressgateway)',
        },
    routeCheck(facts.routeApis),
    ...facts.access.map((a): ClusterCheck => {
      const ok = a.denied.length === 0;
      const on = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.name ? ` ${a.name}` : ''}`;
      return {
        what: `may ${a.verbs.join(',')} ${on}${a.namespace ? ` in ${a.namespace}` : ''}`,
        ok,
        detail: ok ? a.why : `forbidden: ${a.denied.join(',')}${a.reason ? ` (${a.reason})` : ''}: ${a.why}`,
        ...(ok
          ? {}
          : {
              fix: `grant ${a.denied.join(',')} on ${a.group ? `${a.group}/` : ''}${on} to this user (npm run cluster -- rbac prints the roles a run needs)`,
            }),
        ...(a.onlyFor ? { onlyFor: a.onlyFor } : {}),
      };
    }),
  ];
  return checks;
}

/** Whether every check needed by every experiment passed (E1's own only counted with `withE1`). */
export function isReady(checks: readonly ClusterCheck[], withE1: boolean): boolean {
  return checks.every((c) => c.ok || (c.onlyFor === 'E1' && !withE1));
}

export function formatChecks(checks: readonly ClusterCheck[]): string {
  return checks
    .map((c) => {
      const mark = c.ok ? 'ok  ' : c.onlyFor ? `no (${c.onlyFor} only)` : 'MISSING';
      return `${mark.padEnd(12)} ${c.what}: ${c.detail}${c.fix ? `\n${' '.repeat(13)}-> ${c.fix}` : ''}`;
    })
    .join('\n');
}
