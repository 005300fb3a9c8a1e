// istio/ztunnel's own binary, brought by the user (never built or shipped here): where it is, and
// the static configuration it runs with in dedicated mode (no xDS, FAKE_CA).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ztunnelBinaryFromEnv } from '../ztunnel-impl.ts';

export interface RealZtunnel {
  binary: string;
  /** A folder with istio/ztunnel's test root: root-cert.pem and ca-key.pem (its src/tls/). */
  testRootDir: string;
}

/**
 * The binary (a run's `--ztunnel-binary`, else ZTUNNEL_BINARY) and test root (ZTUNNEL_TEST_ROOT), or
 * why they cannot be used.
 */
export function realZtunnelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  given?: string,
): RealZtunnel | string {
  const binary = given || env['ZTUNNEL_BINARY'];
  const testRootDir = env['ZTUNNEL_TEST_ROOT'];
  if (!binary || !testRootDir)
    return (
      'needs ZTUNNEL_BINARY or --ztunnel-binary (an istio/ztunnel binary built with --features testing, for FAKE_CA) and ' +
      "ZTUNNEL_TEST_ROOT (its repository's src/tls folder: root-cert.pem, ca-key.pem)"
    );
  const found = ztunnelBinaryFromEnv(env, given);
  if (typeof found === 'string') return found;
  for (const file of ['root-cert.pem', 'ca-key.pem'])
    if (!existsSync(join(testRootDir, file))) return `ZTUNNEL_TEST_ROOT ${testRootDir} has no ${file}`;
  return { binary, testRootDir };
}

/** One pod as a workload of istio/ztunnel's static config (src/xds.rs `LocalConfig`). */
export interface LocalXdsWorkload {
  name: string;
  namespace: string;
  serviceAccount: string;
  ip: string;
  /** ztunnel serves a pod only when this is its NODE_NAME. */
  node: string;
}

/** The static workload config (istio/ztunnel src/xds.rs `LocalConfig`) naming these pods. */
export function localXdsFile(workloads: readonly LocalXdsWorkload[]): string {
  return stringify({
    workloads: workloads.map((w) => ({
      uid: `cluster1//v1/Pod/${w.namespace}/${w.name}`,
      name: w.name,
      namespace: w.namespace,
      serviceAccount: w.serviceAccount,
      // Without it ztunnel presents spiffe:///ns/... and refuses peers of cluster.local.
      trustDomain: 'cluster.local',
      workloadIps: [w.ip],
      protocol: 'HBONE',
      node: w.node,
      network: '',
      services: {},
    })),
    policies: [],
    services: [],
  });
}

/** The static config naming the one pod a dedicated-mode ztunnel serves. */
export function localXdsConfig(pod: {
  name: string;
  ip: string;
  namespace?: string;
  serviceAccount?: string;
}): string {
  return localXdsFile([
    {
      name: pod.name,
      namespace: pod.namespace ?? 'default',
      serviceAccount: pod.serviceAccount ?? 'httpbin',
      ip: pod.ip,
      node: 'node-1',
    },
  ]);
}

/** The test root's certificate and key, for our CA to sign with (root-cert.pem, ca-key.pem). */
export function readTestRoot(real: RealZtunnel): { certPem: string; keyPem: string } {
  return {
    certPem: readFileSync(join(real.testRootDir, 'root-cert.pem'), 'utf8'),
    keyPem: readFileSync(join(real.testRootDir, 'ca-key.pem'), 'utf8'),
  };
}
