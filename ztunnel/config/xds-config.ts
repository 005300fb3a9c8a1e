// Which discovery our ztunnel speaks, from XDS_ADDRESS as the chart sets it:
//   host:port          our control plane's JSON-lines discovery (plaintext, mesh/discovery);
//   https://host:port  istiod's own protocols, as istio/ztunnel speaks them: delta ADS for
//                      istio.workload.Address with the pod's token (mesh/xds/delta-ads-client.ts),
//                      the CA at CA_ADDRESS over gRPC (CreateCertificate, mesh/pki/ca-client.ts) and,
//                      in-pod, istio-cni's ZDS (node-agent/zds-client.ts). With Istio's control plane,
//                      or ours on its ztunnel port (15013, where the binary is served). istio/ztunnel
//                      itself reads any XDS_ADDRESS as https (src/config.rs validate_uri, 888-894 at
//                      1.28.1), so Istio's chart gets the address said in full for ours.
// The node istiod authorizes the stream by: INSTANCE_IP, POD_NAME, POD_NAMESPACE (the chart's
// fieldRefs), NODE_NAME, and every ISTIO_META_* variable as metadata (client.rs 336-373).
import { readFileSync } from 'node:fs';
import type { DiscoveryState } from '../../mesh/discovery/index.ts';
import { ztunnelNodeId } from '../../mesh/xds/delta-ads-client.ts';

export type XdsConfig =
  | { protocol: 'json-lines'; address: string; host: string; port: number }
  | {
      protocol: 'delta-ads';
      /** host:port. */
      address: string;
      rootPem: string;
      tokenFile: string;
      node: { id: string; metadata: Record<string, string> };
      clusterId: string;
    };

/** istio/ztunnel's cluster id: ISTIO_META_CLUSTER_ID, else CLUSTER_ID, else Kubernetes (src/config.rs 521-524). */
export function clusterIdOf(env: NodeJS.ProcessEnv): string {
  return env['ISTIO_META_CLUSTER_ID'] || env['CLUSTER_ID'] || 'Kubernetes';
}

/** The discovery XDS_ADDRESS names, or a message saying which variable is wrong and how. */
export function xdsConfigFromEnv(env: NodeJS.ProcessEnv): XdsConfig | undefined {
  const value = env['XDS_ADDRESS'];
  if (!value) return undefined;
  const need = (name: string): string => {
    const v = env[name];
    if (!v)
      throw new Error(
        `Expected ${name} to be set with XDS_ADDRESS ${value} (istiod's protocols), got nothing`,
      );
    return v;
  };
  if (!value.includes('://')) {
    const [host = '', port = ''] = value.split(/:(?=\d+$)/);
    if (!host || !port)
      throw new Error(
        `Expected XDS_ADDRESS to be host:port or an https:// URL, got ${JSON.stringify(value)}`,
      );
    return { protocol: 'json-lines', address: value, host, port: Number(port) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`Expected XDS_ADDRESS to be host:port or an https:// URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' || !url.port)
    throw new Error(
      `Expected XDS_ADDRESS to be an https:// URL with a port (istiod's 15012), got ${JSON.stringify(value)}`,
    );
  const rootFile = env['XDS_ROOT_CA'] || need('CA_ROOT_CA');
  let rootPem: string;
  try {
    rootPem = readFileSync(rootFile, 'utf8');
  } catch (err) {
    throw new Error(
      `Expected XDS_ROOT_CA to name a readable PEM file, got ${JSON.stringify(rootFile)}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  const ip = env['INSTANCE_IP'] || need('NODE_IP');
  const name = need('POD_NAME');
  const namespace = need('POD_NAMESPACE');
  const meta = Object.entries(env).flatMap(([k, v]) =>
    k.startsWith('ISTIO_META_') && v !== undefined ? [[k.slice('ISTIO_META_'.length), v] as const] : [],
  );
  return {
    protocol: 'delta-ads',
    address: url.host,
    rootPem,
    tokenFile: need('AUTH_TOKEN'),
    clusterId: clusterIdOf(env),
    node: {
      id: ztunnelNodeId({ ip, name, namespace }),
      metadata: {
        ...Object.fromEntries(meta),
        NAME: name,
        NAMESPACE: namespace,
        INSTANCE_IPS: ip,
        NODE_NAME: need('NODE_NAME'),
      },
    },
  };
}

/** istio/ztunnel's defaults for what Istio's chart mounts (src/config.rs 107-109 at 1.28.1, from /). */
export const ISTIO_DEFAULT_PATHS = {
  CA_ROOT_CA: '/var/run/secrets/istio/root-cert.pem',
  AUTH_TOKEN: '/var/run/secrets/tokens/istio-token',
} as const;

/**
 * The environment with istio/ztunnel's defaults filled in when XDS_ADDRESS is istiod's (an https://
 * URL): Istio's chart mounts the root and the token where the binary looks without naming them.
 */
export function withIstioDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env['XDS_ADDRESS']?.startsWith('https://')) return env;
  return {
    ...env,
    CA_ROOT_CA: env['CA_ROOT_CA'] || ISTIO_DEFAULT_PATHS.CA_ROOT_CA,
    AUTH_TOKEN: env['AUTH_TOKEN'] || ISTIO_DEFAULT_PATHS.AUTH_TOKEN,
  };
}

/**
 * A pod's ports by name, from discovery: the target ports of the services its workload backs (ZDS
 * names the pod but not its ports; the plaintext capture forwards to a pod's one port).
 */
export function targetPortsOf(state: DiscoveryState): (namespace: string, name: string) => number[] {
  return (namespace, name) => {
    const ports = new Set<number>();
    for (const w of state.workloads())
      if (w.namespace === namespace && w.name === name)
        for (const key of w.services) {
          const [ns = '', svc = ''] = key.split('/');
          for (const p of state.serviceByName(ns, svc)?.ports ?? []) ports.add(p.targetPort);
        }
    return [...ports].sort((a, b) => a - b);
  };
}
