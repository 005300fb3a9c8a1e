// The local backend as a provider (clusters/provider.ts): the embedded process cluster, what it can
// do, the columns it fills, and how a run's parameters become its options.
import type { ZtunnelImplName } from '../ztunnel-impl.ts';
import { badInput, PLANTED_REMOVAL_HOLD_MS } from '../../lib/index.ts';
import { ensureEnvoy, ensureGoTool, GO_HTTPBIN } from '../../lib/install/index.ts';
import { ISTIO_ZTUNNEL_IMAGE } from '../manifests/index.ts';
import { CAPABILITIES } from '../provider.ts';
import { ADDRESS_BLOCK_KEY, parseAddressBlock, pickAddressBlock } from './address-pool.ts';
import type { BackendProvider, Capability } from '../provider.ts';
import { CPU_ISOLATION_MODES } from './cpu-cgroups.ts';
import type { CpuIsolation } from './cpu-cgroups.ts';
import { ISTIO_SHARED_CA_MODES } from './istio-shared-ztunnel.ts';
import type { IstioSharedCa } from './istio-shared-ztunnel.ts';
import { istioZtunnelImage } from './istio-ztunnel-image.ts';
import { createLocalBackend } from './local-backend.ts';
import type { LocalBackendOptions } from './local-backend.ts';
import { TIMING_MODEL_KEYS } from './timing-model.ts';
import { readTestRoot, realZtunnelFromEnv } from './upstream-ztunnel.ts';
import { ztunnelBinaryFromEnv } from '../ztunnel-impl.ts';

export const LOCAL_PROVIDER: BackendProvider<'local'> = {
  name: 'local',
  summary: 'local (embedded process cluster)',
  // Every capability but a generator pod in the cluster (its generator is a process on the host,
  // calling one gateway pod's address, so the gateway cannot roll under it), kind's old mode, istio-cni
  // as a DaemonSet, and a node's cordon and drain.
  capabilities: new Set(
    (Object.keys(CAPABILITIES) as Capability[]).filter(
      (c) =>
        c !== 'loadInCluster' &&
        c !== 'nodeAddressZtunnel' &&
        c !== 'gatewayRollout' &&
        c !== 'cniDaemonSet' &&
        c !== 'nodeDrain',
    ),
  ),
  // The timing model's values, each a parameter of the run (kind measures them instead).
  columns: [
    ...TIMING_MODEL_KEYS.map((k) => ({
      name: `timing_${k}`,
      role: 'parameter' as const,
      note: `local: the timing model's \`${k}\`, ms (\`--timing\`)`,
    })),
    // istiod (our CA over gRPC) or fake (FAKE_CA) with --ztunnel-impl istio-shared, else empty: how
    // the binary got certificates, not what the experiment varies (schema 12).
    {
      name: 'istio_shared_ca',
      role: 'bookkeeping' as const,
      note: "local, --ztunnel-impl istio-shared: where istio/ztunnel's binary got its workload certificates: istiod (our CA over gRPC, CreateCertificate) or fake (FAKE_CA, minted in the binary); empty otherwise (schema 12; older rows: empty, and their istio-shared rows ran fake)",
    },
  ],
  readyTimeoutMs: 60_000,
  runOverheadS: 0,
  bringUpText: 'starting control plane, nodes, ztunnels, gateway, httpbin',
  // ztunnel in each pod's network as istio-cni puts it; load straight to the gateway's address.
  manifestProfile: { ztunnel: { inPod: true }, gateway: {} },
  options: [
    {
      key: 'istio-shared-ca',
      arg: '<mode>',
      description: "local, --ztunnel-impl istio-shared: istio/ztunnel's certificates from istiod | fake",
      detail:
        'istiod: our CA over gRPC, CreateCertificate, as an official build asks; fake: FAKE_CA=true, minted in the binary from its test root (needs a --features testing build)',
      parse: (raw) => {
        if (!(ISTIO_SHARED_CA_MODES as readonly string[]).includes(raw))
          throw badInput('--istio-shared-ca', ISTIO_SHARED_CA_MODES.join(' | '), raw);
        return raw;
      },
      default: 'istiod',
    },
    {
      key: ADDRESS_BLOCK_KEY,
      arg: '<n>',
      description: 'local: the 127.<n>.0.0/16 block for nodes, pods and services (1-254; default: random)',
      detail: 'picked at random in 150-249 and recorded in the row (address_block)',
      parse: parseAddressBlock,
    },
  ],
  // The block is picked once, here: the plan's preflight checks the very block the run then takes.
  settle: (settings) =>
    settings[ADDRESS_BLOCK_KEY] === undefined
      ? { ...settings, [ADDRESS_BLOCK_KEY]: pickAddressBlock() }
      : settings,
  // go-httpbin from the tools folder, and Envoy (the gateway and sidecar) run from here.
  prepareTools: async ({ signal, write }) => {
    const options = { ...(signal ? { signal } : {}), ...(write ? { write } : {}) };
    await ensureGoTool(GO_HTTPBIN, options);
    return ensureEnvoy(options);
  },
  create: (params, { clock, logDir, envoyBinary, settings = {} }) =>
    Promise.resolve(
      createLocalBackend({
        clock,
        ...(typeof settings[ADDRESS_BLOCK_KEY] === 'number'
          ? { addressBlock: settings[ADDRESS_BLOCK_KEY] }
          : {}),
        ...(params.timing ? { timing: params.timing } : {}),
        ...(logDir ? { logDir } : {}),
        ...(envoyBinary ? { tools: { envoyBinary } } : {}),
        ...(params.podNetwork === 'netns' ? podNetnsOptions(params.arms?.tcpMigrateReq) : {}),
        ...ZTUNNEL_IMPL_OPTIONS[params.ztunnelImpl ?? 'ours'](settings, params.ztunnelBinary),
        ...cpuIsolationOptions(params.arms?.cpuIsolation),
        ...(params.arms?.plantedRegression === 'late-removal'
          ? { holdRemovalsMs: PLANTED_REMOVAL_HOLD_MS }
          : {}),
      }),
    ),
};

/**
 * --netns: pods in namespaces of their own. tcp_migrate_req is per namespace and a new one starts at
 * the kernel's default (0), so the arm's 1 is set in each pod's, where ztunnel's in-pod listeners
 * live (a cluster would set it through the pod's securityContext.sysctls).
 */
function podNetnsOptions(
  tcpMigrateReq: number | undefined,
): Pick<LocalBackendOptions, 'netns' | 'podSysctls'> {
  return {
    netns: true,
    // 0 is what a new namespace starts with: set only the arm's 1 (a process spawn per pod otherwise).
    ...(tcpMigrateReq === 1 ? { podSysctls: { 'net.ipv4.tcp_migrate_req': '1' } } : {}),
  };
}

/**
 * --ztunnel-impl istio: pods in namespaces of their own, istio/ztunnel's binary as an image, and the
 * mesh CA signing with its test root (the root a FAKE_CA ztunnel trusts). Refused (exit 2) when the
 * binary or its test root is not given.
 */
function istioZtunnelOptions(binary?: string): Pick<LocalBackendOptions, 'netns' | 'caRoot' | 'images'> {
  const real = realZtunnelFromEnv(process.env, binary);
  if (typeof real === 'string')
    throw badInput('--ztunnel-impl istio', "istio/ztunnel's binary and test root", real);
  return {
    netns: true,
    caRoot: readTestRoot(real),
    images: new Map([[ISTIO_ZTUNNEL_IMAGE, istioZtunnelImage(real.binary)]]),
  };
}

/**
 * --ztunnel-impl istio-shared: istio/ztunnel's binary as the ztunnel DaemonSet in shared mode
 * (clusters/local/istio-shared-ztunnel.ts), pods in namespaces of their own. With `--istio-shared-ca
 * istiod` it asks our CA over gRPC for every certificate, so the mesh CA keeps a root of its own;
 * with `fake` (FAKE_CA) it mints them from its test root, so the mesh CA signs with that root too
 * (the gateway's certificate, which that ztunnel checks). Refused (exit 2) when the binary (and for
 * `fake` its test root) is not given.
 */
function istioSharedZtunnelOptions(
  ca: IstioSharedCa,
  binary?: string,
): Pick<LocalBackendOptions, 'netns' | 'caRoot' | 'istioShared'> {
  // FAKE_CA needs the test root its testing build signs with; our CA over gRPC needs the binary only.
  if (ca === 'fake') {
    const real = realZtunnelFromEnv(process.env, binary);
    if (typeof real === 'string')
      throw badInput(
        '--ztunnel-impl istio-shared --istio-shared-ca fake',
        "istio/ztunnel's binary and test root",
        real,
      );
    return { netns: true, caRoot: readTestRoot(real), istioShared: { binary: real.binary, ca } };
  }
  const real = ztunnelBinaryFromEnv(process.env, binary);
  if (typeof real === 'string') throw badInput('--ztunnel-impl istio-shared', "istio/ztunnel's binary", real);
  return { netns: true, istioShared: { binary: real.binary, ca } };
}

/** How this backend runs each ztunnel implementation (clusters/ztunnel-impl.ts). */
const ZTUNNEL_IMPL_OPTIONS: Readonly<
  Record<
    ZtunnelImplName,
    (settings: Readonly<Record<string, unknown>>, binary?: string) => Partial<LocalBackendOptions>
  >
> = {
  ours: () => ({}),
  istio: (_settings, binary) => istioZtunnelOptions(binary),
  'istio-shared': (settings, binary) =>
    istioSharedZtunnelOptions(settings['istio-shared-ca'] === 'fake' ? 'fake' : 'istiod', binary),
};

/** --cpu-isolation: the nodes' and the generator's cpu cgroups; none (the default) adds nothing. */
function cpuIsolationOptions(mode: string | undefined): Pick<LocalBackendOptions, 'cpuIsolation'> {
  if (mode === undefined || mode === 'none') return {};
  if (!(CPU_ISOLATION_MODES as readonly string[]).includes(mode))
    throw badInput('--cpu-isolation', CPU_ISOLATION_MODES.join(' | '), mode);
  return { cpuIsolation: mode as CpuIsolation };
}
