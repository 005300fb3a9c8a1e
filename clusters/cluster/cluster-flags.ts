// The flags that name an existing cluster's parts, parsed once for `npm run cluster -- check` and
// for `--backend cluster` (clusters/cluster/provider.ts): the same refusal either way.
import { existsSync, statSync } from 'node:fs';
import { badInput } from '../../lib/index.ts';

/** A Kubernetes object name that must be a DNS label (RFC 1123): namespaces, Services. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `<namespace>/<service>`, each a DNS label. */
export function parseGatewayRef(raw: string): { namespace: string; name: string } {
  const [namespace, name, more] = raw.split('/');
  if (!namespace || !name || more !== undefined || !DNS_LABEL.test(namespace) || !DNS_LABEL.test(name))
    throw badInput(
      '--gateway',
      '<namespace>/<service>',
      raw,
      'e.g. --gateway istio-system/istio-ingressgateway',
    );
  return { namespace, name };
}

/** A kubeconfig file that exists (bad input before anything is contacted). */
export function parseKubeconfigPath(raw: string): string {
  if (!raw || !existsSync(raw) || !statSync(raw).isFile())
    throw badInput('--kubeconfig', 'a kubeconfig file', raw, 'the file does not exist');
  return raw;
}

/** A namespace name (a DNS label). */
export function parseNamespaceName(raw: string): string {
  if (!DNS_LABEL.test(raw)) throw badInput('--istio-namespace', 'a namespace name (a DNS label)', raw);
  return raw;
}

/** The API server's answer for an object that is not there (client-node's ApiException code). */
export const isNotFound = (err: unknown): boolean => (err as { code?: number } | null)?.code === 404;

/** An API error in one line: client-node's ApiException says its code and body on several. */
export function apiErrorLine(err: unknown): string {
  const e = err as { code?: unknown; body?: unknown } | null;
  if (typeof e?.code === 'number') {
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
    const reason = /"(?:message|reason)":"([^"]*)"/.exec(body)?.[1];
    return `HTTP ${String(e.code)}${reason ? ` ${reason}` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}
