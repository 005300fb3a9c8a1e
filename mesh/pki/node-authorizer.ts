// Who may ask for another workload's certificate: istiod's NodeAuthorizer
// (security/pkg/server/ca/node_auth.go). A caller whose service account is a trusted node account
// (CA_TRUSTED_NODE_ACCOUNTS, istio-system/ztunnel by default for ambient) may impersonate an
// identity only when a pod with that identity's service account is scheduled on the caller's own
// node, the caller's pod is known, and its uid and service account match the token's.
import type { TokenCaller } from './service-account-token.ts';
import { parseSpiffeId } from './spiffe.ts';

export const DEFAULT_TRUSTED_NODE_ACCOUNTS = ['istio-system/ztunnel'];

/** The pod facts the check reads (the control plane's pod informer). */
export interface AuthorizerPod {
  name: string;
  namespace: string;
  uid: string;
  nodeName: string;
  serviceAccount: string;
  /** phase Failed pods are not indexed upstream (FieldSelector status.phase!=Failed). */
  isTerminal: boolean;
}

/** undefined when allowed, else the reason (logged; the caller gets an opaque refusal). */
export function checkImpersonation(
  caller: TokenCaller,
  requested: string,
  pods: readonly AuthorizerPod[],
  trustedNodeAccounts: readonly string[] = DEFAULT_TRUSTED_NODE_ACCOUNTS,
): string | undefined {
  if (!trustedNodeAccounts.includes(`${caller.namespace}/${caller.serviceAccount}`))
    return `caller ${caller.namespace}/${caller.serviceAccount} is not allowed to impersonate`;
  const identity = parseSpiffeId(requested);
  if (!identity) return `impersonated identity ${JSON.stringify(requested)} is not a SPIFFE id`;
  const callerPod = pods.find((p) => p.namespace === caller.namespace && p.name === caller.podName);
  if (!callerPod) return `pod ${caller.namespace}/${caller.podName} not found`;
  if (callerPod.uid !== caller.podUid) return 'pod found, but UID does not match';
  if (callerPod.serviceAccount !== caller.serviceAccount)
    return 'pod found, but ServiceAccount does not match';
  const onNode = pods.some(
    (p) =>
      !p.isTerminal &&
      p.nodeName === callerPod.nodeName &&
      p.namespace === identity.namespace &&
      p.serviceAccount === identity.serviceAccount,
  );
  return onNode
    ? undefined
    : `no instance of ${identity.namespace}/${identity.serviceAccount} on node ${callerPod.nodeName}`;
}
