import { parseGateway } from './gateway.ts';
import type { GatewayConfig } from './gateway.ts';
import { compareByCreation } from './istio-object.ts';
import type { IstioObject } from './istio-object.ts';
import { parseVirtualService } from './virtual-service.ts';
import type { VirtualServiceConfig } from './virtual-service.ts';

/**
 * What istiod's push context holds for gateways (initGateways, initVirtualServices,
 * push_context.go), built once a push: the parsed Gateways and VirtualServices, oldest first, and
 * each pod's labels, by which a gateway proxy (named by its node id) is matched to Gateway selectors.
 */
export interface NetworkingSnapshot {
  gateways: readonly GatewayConfig[];
  virtualServices: readonly VirtualServiceConfig[];
  /** `namespace/name` -> labels. */
  podLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

export const EMPTY_NETWORKING: NetworkingSnapshot = {
  gateways: [],
  virtualServices: [],
  podLabels: new Map(),
};

export interface NetworkingInput {
  gateways: readonly IstioObject[];
  virtualServices: readonly IstioObject[];
  pods: readonly { namespace: string; name: string; labels: Readonly<Record<string, string>> }[];
}

/** The snapshot, and one line for each thing in the objects left out or not served. */
export function buildNetworkingSnapshot(input: NetworkingInput): {
  snapshot: NetworkingSnapshot;
  problems: string[];
} {
  const problems: string[] = [];
  const parsed = <T>(
    objects: readonly IstioObject[],
    parse: (o: IstioObject) => { config?: T; problems: string[] },
  ) =>
    [...objects].sort(compareByCreation).flatMap((o) => {
      const result = parse(o);
      problems.push(...result.problems);
      return result.config === undefined ? [] : [result.config];
    });
  return {
    snapshot: {
      gateways: parsed(input.gateways, parseGateway),
      virtualServices: parsed(input.virtualServices, parseVirtualService),
      podLabels: new Map(input.pods.map((p) => [`${p.namespace}/${p.name}`, p.labels])),
    },
    problems,
  };
}
