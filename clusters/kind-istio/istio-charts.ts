// Istio's Helm charts from the module (manifests/charts), installed in Istio's order for ambient
// (base, istiod, istio-cni, ztunnel, the gateway), with the values a two-core kind cluster and an
// upstream Envoy need. Each value says why; everything else is the chart's default.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ISTIO_JSON_LOG_FORMAT } from '../../mesh/xds/access-log.ts';
import { ISTIO_ZTUNNEL_LOG_LEVEL } from '../manifests/index.ts';
import type { LoggedStep } from '../steps/step-runner.ts';
import { DEFAULT_DEBOUNCE_AFTER_MS } from '../kind/kind-options.ts';
import type { IstioImages } from './istio-images.ts';

export const ISTIO_NAMESPACE = 'istio-system';
/** The gateway chart's release, named as Istio's default ingress gateway (--gateway of --backend cluster). */
export const ISTIO_GATEWAY = { namespace: ISTIO_NAMESPACE, name: 'istio-ingressgateway' } as const;

export interface IstioRelease {
  release: string;
  /** The chart's folder under manifests/charts. */
  chart: string;
  values: Record<string, unknown>;
}

/** Small requests: the charts' defaults (istiod 500m/2Gi, ztunnel 200m/512Mi) do not fit two cores. */
const requests = (cpu: string, memory: string) => ({ requests: { cpu, memory } });

/**
 * The ztunnel chart's container: istio/ztunnel's binary's image, or ours. Ours reads the chart as
 * the binary does, and speaks istiod's protocols when XDS_ADDRESS is an https:// URL
 * (ztunnel/config/xds-config.ts): the chart's default is istiod's host:port, which the binary reads
 * as https and ours as its own JSON-lines discovery, so both addresses are said in full.
 */
export type IstioZtunnel = { impl: 'istio'; image: string } | { impl: 'ours'; image: string };

const ISTIOD_URL = `https://istiod.${ISTIO_NAMESPACE}.svc:15012`;

function ztunnelValues(ztunnel: IstioZtunnel): Record<string, unknown> {
  const common = {
    image: ztunnel.image,
    imagePullPolicy: 'Never',
    resources: requests('20m', '64Mi'),
    // Its RUST_LOG: xds::client at debug, for the removal lag's lines (at debug from 1.30.0,
    // istio/ztunnel#1723; ours logs them at info whatever RUST_LOG says).
    logLevel: ISTIO_ZTUNNEL_LOG_LEVEL,
  };
  if (ztunnel.impl === 'istio') return common;
  return { ...common, xdsAddress: ISTIOD_URL, caAddress: ISTIOD_URL };
}

export function istioReleases(
  images: IstioImages,
  ztunnel: IstioZtunnel,
  debounceAfterMs = DEFAULT_DEBOUNCE_AFTER_MS,
): IstioRelease[] {
  return [
    { release: 'istio-base', chart: 'base', values: {} },
    {
      release: 'istiod',
      chart: 'istio-control/istio-discovery',
      values: {
        image: images.pilot,
        autoscaleEnabled: false,
        resources: requests('100m', '256Mi'),
        env: {
          // Ambient, as the ambient profile sets it (manifests/helm-profiles/ambient.yaml).
          PILOT_ENABLE_AMBIENT: 'true',
          // The gateway's Envoy is upstream's 1.40, without Istio's own filters: istiod would send
          // istio.metadata_exchange and istio.alpn (pilot/pkg/networking/core/listener_builder.go,
          // pilot/pkg/features/telemetry.go, pilot.go), and Envoy would refuse the listeners.
          PILOT_ENABLE_METADATA_EXCHANGE: 'false',
          PILOT_ENABLE_ALPN_FILTER: 'false',
          // The debounce arm (--timing debounceQuietMs=): a Go duration, as istiod reads it.
          PILOT_DEBOUNCE_AFTER: `${String(debounceAfterMs)}ms`,
        },
        // istio.stats, the same reason (the chart's default Prometheus provider adds it).
        telemetry: { enabled: false },
        global: { imagePullPolicy: 'Never', proxy: { image: images.proxyv2 } },
        // The gateway's access log in the harness's JSON fields (the explanation reads them).
        meshConfig: {
          accessLogFile: '/dev/stdout',
          accessLogEncoding: 'JSON',
          accessLogFormat: JSON.stringify(ISTIO_JSON_LOG_FORMAT),
        },
      },
    },
    {
      release: 'istio-cni',
      chart: 'istio-cni',
      // kind's nodes have IPv4 only.
      values: {
        image: images.installCni,
        pullPolicy: 'Never',
        ambient: { enabled: true, ipv6: false },
        resources: requests('20m', '64Mi'),
      },
    },
    { release: 'ztunnel', chart: 'ztunnel', values: ztunnelValues(ztunnel) },
    {
      release: ISTIO_GATEWAY.name,
      chart: 'gateway',
      values: {
        // Reached by its ClusterIP from fortio's pod, as ASM's client did; LoadBalancer stays pending on kind.
        service: { type: 'ClusterIP' },
        autoscaling: { enabled: false },
        replicaCount: 1,
        resources: requests('100m', '128Mi'),
        imagePullPolicy: 'Never',
        labels: { istio: 'ingressgateway' },
        // pilot-agent's bootstrap would add Istio's metadata_discovery extension otherwise.
        env: { PEER_METADATA_DISCOVERY: 'false' },
      },
    },
  ];
}

/** `helm install` of each release in order, waiting for each to be Ready. */
export async function installIstio(
  step: LoggedStep,
  options: {
    helm: string;
    chartsDir: string;
    kubeconfig: string;
    images: IstioImages;
    ztunnel: IstioZtunnel;
    debounceAfterMs: number;
    valuesDir: string;
    timeoutS?: number;
  },
): Promise<void> {
  for (const r of istioReleases(options.images, options.ztunnel, options.debounceAfterMs)) {
    const values = join(options.valuesDir, `${r.release}.values.json`);
    await writeFile(values, `${JSON.stringify(r.values, null, 2)}\n`);
    step.note(`helm install ${r.release} ${r.chart}`, true);
    await step.run(options.helm, [
      'install',
      r.release,
      join(options.chartsDir, r.chart),
      '--namespace',
      ISTIO_NAMESPACE,
      '--create-namespace',
      '--kubeconfig',
      options.kubeconfig,
      '--values',
      values,
      '--wait',
      '--timeout',
      `${String(options.timeoutS ?? 180)}s`,
    ]);
  }
}
