// Our ztunnel's settings, parsed once from the environment the DaemonSet's chart sets, as istio/ztunnel
// parses its environment into one Config (src/config.rs `construct_config`). main.ts reads nothing
// else from the environment; what each variable means is said in main.ts's header.
import { existsSync } from 'node:fs';
import {
  parsePlantedRegression,
  PLANTED_DEADLINE_EARLY_MS,
  PLANTED_REGRESSION_ENV,
  requiredEnv,
} from '../../lib/index.ts';
import type { PlantedRegression } from '../../lib/index.ts';
import { parseDrainStrategy } from '../drain-strategy.ts';
import type { DrainStrategy } from '../drain-strategy.ts';
import { DEFAULT_ZDS_SOCKET } from '../node-agent/zds-client.ts';
import { computeDrainDeadlineMs } from './drain-deadline.ts';
import { withIstioDefaults, xdsConfigFromEnv } from './xds-config.ts';
import type { XdsConfig } from './xds-config.ts';

export const DEFAULT_ZDS_RELAY = '/usr/local/bin/zds-relay';

export interface ZtunnelConfig {
  nodeName: string;
  /** The node's address (node-address mode's listener); in-pod, INSTANCE_IP stands in. */
  nodeIp: string;
  /** This instance's own address: readiness and metrics bind it. */
  adminIp: string;
  /** A name for this instance in every log line. */
  instance: string;
  /** After SIGTERM, before what is left is closed (the planted deadline-early already applied). */
  drainDeadlineMs: number;
  planted: PlantedRegression;
  drainStrategy: DrainStrategy;
  /** The discovery XDS_ADDRESS names; undefined: none (no outbound). */
  xds: XdsConfig | undefined;
  /** The environment with istio/ztunnel's file defaults, for the CA client. */
  caEnv: NodeJS.ProcessEnv;
  /** For messages: the CA's address as given. */
  caAddress: string | undefined;
  /** A listener set inside each pod (pods from the node agent); false: node-address mode. */
  inPod: boolean;
  /** In-pod: the node agent's socket. With istiod's protocols, istio-cni's ZDS, held by zdsRelay. */
  zdsPath: string | undefined;
  zdsRelay: string;
  poolBackoff: boolean;
  /** Ours, not upstream's: read the socket table at the drain deadline. */
  readCloseKinds: boolean;
  /** Written once ready, removed when the drain starts (an exec readiness probe). */
  readyFile: string | undefined;
}

/**
 * Every setting, checked together before anything starts; a bad one throws an Error whose message
 * names the variable, the value and what it must be.
 */
export function parseZtunnelConfig(
  env: NodeJS.ProcessEnv,
  options: { pid: number; exists?: (path: string) => boolean },
): ZtunnelConfig {
  const required = (variable: string): string => requiredEnv(env, variable);
  const nodeName = required('NODE_NAME');
  // Istio's chart sets INSTANCE_IP and POD_NAME, ours NODE_IP and INSTANCE.
  const nodeIp = env['NODE_IP'] || env['INSTANCE_IP'] || required('NODE_IP');
  const instance = env['INSTANCE'] ?? env['POD_NAME'] ?? `${nodeName}/${String(options.pid)}`;
  const planted = parsePlantedRegression(env[PLANTED_REGRESSION_ENV]);
  const deadlineMs = computeDrainDeadlineMs(env);
  const drainStrategy = parseDrainStrategy(env['DRAIN_STRATEGY']);
  const caEnv = withIstioDefaults(env);
  const xds = xdsConfigFromEnv(caEnv);
  const inPod = parseInPod(env['INPOD_ENABLED']);
  const zdsRelay = env['ZDS_RELAY'] || DEFAULT_ZDS_RELAY;
  checkModes({ env, xds, inPod, drainStrategy, zdsRelay, exists: options.exists ?? existsSync });
  return {
    nodeName,
    nodeIp,
    adminIp: env['INSTANCE_IP'] || nodeIp,
    instance,
    // Test only (lib/planted-regression.ts): a regression the gate must catch.
    drainDeadlineMs:
      planted === 'deadline-early' ? Math.max(0, deadlineMs - PLANTED_DEADLINE_EARLY_MS) : deadlineMs,
    planted,
    drainStrategy,
    xds,
    caEnv,
    caAddress: env['CA_ADDRESS'],
    inPod,
    zdsPath: !inPod
      ? undefined
      : xds?.protocol === 'delta-ads'
        ? env['ZDS_ADDRESS'] || env['INPOD_UDS'] || DEFAULT_ZDS_SOCKET
        : required('ZDS_ADDRESS'),
    zdsRelay,
    poolBackoff: env['POOL_BACKOFF'] === 'true',
    readCloseKinds: env['DRAIN_READ_CLOSE_KINDS'] === 'true',
    readyFile: env['READY_FILE'] || undefined,
  };
}

function parseInPod(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`Expected INPOD_ENABLED to be true or false, got ${JSON.stringify(value)}`);
}

/** The combinations that cannot work, refused with the reason. */
function checkModes(c: {
  env: NodeJS.ProcessEnv;
  xds: XdsConfig | undefined;
  inPod: boolean;
  drainStrategy: DrainStrategy;
  zdsRelay: string;
  exists: (path: string) => boolean;
}): void {
  // istio-cni's ZDS needs the relay; without it the connect would be retried for ever.
  if (c.inPod && c.xds?.protocol === 'delta-ads' && !c.exists(c.zdsRelay))
    throw new Error(
      `Expected ZDS_RELAY to name the zds-relay binary (istio-cni's ZDS passes fds), got ${JSON.stringify(c.zdsRelay)}: not there`,
    );
  if (!c.inPod && !c.xds)
    throw new Error(
      'Expected XDS_ADDRESS to be set with INPOD_ENABLED=false (pods come from discovery), got nothing',
    );
  // The strategies find a pod's listeners by the uid discovery gives; istiod's uid is not the pod's.
  if (c.xds?.protocol === 'delta-ads' && c.drainStrategy !== 'none')
    throw new Error(
      `Expected DRAIN_STRATEGY none with istiod's protocols (XDS_ADDRESS ${c.env['XDS_ADDRESS'] ?? ''}), got ${c.drainStrategy}`,
    );
  // The strategies act on one pod's listeners; in node-address mode every pod shares one listener.
  if (!c.inPod && c.drainStrategy !== 'none')
    throw new Error(`Expected DRAIN_STRATEGY none with INPOD_ENABLED=false, got ${c.drainStrategy}`);
}
