import { isIPv4 } from 'node:net';
import type { Delta, ServerMessage, ServiceEntry, WorkloadEntry } from './protocol.ts';
import { serviceKey } from './protocol.ts';

/** What changed in one applied delta: drain strategies act on these. */
export interface DiscoveryChange {
  /** Workloads that went from HEALTHY to UNHEALTHY. */
  becameUnhealthy: WorkloadEntry[];
  /** Workloads removed altogether. */
  removed: WorkloadEntry[];
}

/** The client's view: workloads by uid and IP, services by key and VIP. */
export interface DiscoveryState {
  version: string;
  /** Counts applied deltas: a cache of derived views is good while this is unchanged. */
  readonly revision: number;
  workloadByIp(ip: string): WorkloadEntry | undefined;
  /** Every known workload, in any status. */
  workloads(): WorkloadEntry[];
  serviceByVip(vip: string): ServiceEntry | undefined;
  serviceByName(namespace: string, name: string): ServiceEntry | undefined;
  /** Every known service. */
  services(): ServiceEntry[];
  /** Workloads backing a service, in any status. */
  endpointsOf(service: ServiceEntry): WorkloadEntry[];
  /** Validates, then applies the whole delta or nothing (throws with the reason to NACK). */
  apply(message: ServerMessage): DiscoveryChange;
  /** Resolves true once a workload with this IP is known, false if it is not within `timeoutMs`. */
  waitForWorkload(ip: string, timeoutMs: number): Promise<boolean>;
}

export function createDiscoveryState(): DiscoveryState {
  const workloads = new Map<string, WorkloadEntry>();
  const services = new Map<string, ServiceEntry>();
  let version = '';
  let revision = 0;
  const waiters = new Set<() => void>();

  const validate = (message: ServerMessage): void => {
    for (const w of message.workloads.upsert) {
      if (!w.uid || !isIPv4(w.podIp))
        throw new Error(
          `workload ${JSON.stringify(w.uid)} has an invalid address ${JSON.stringify(w.podIp)}`,
        );
      // Off the wire: the type says what should arrive, not what did.
      const status: string = w.status;
      if (status !== 'HEALTHY' && status !== 'UNHEALTHY')
        throw new Error(`workload ${w.uid} has unknown status ${JSON.stringify(w.status)}`);
      if (w.tunnelAddress !== undefined && !isIPv4(w.tunnelAddress.replace(/:\d{1,5}$/, '')))
        throw new Error(`workload ${w.uid} has an invalid tunnel address ${JSON.stringify(w.tunnelAddress)}`);
      if (!(w.capacity >= 0)) throw new Error(`workload ${w.uid} has invalid capacity ${String(w.capacity)}`);
    }
    for (const s of message.services.upsert) {
      if (!isIPv4(s.vip))
        throw new Error(`service ${serviceKey(s)} has an invalid VIP ${JSON.stringify(s.vip)}`);
    }
  };

  const applyDelta = <T>(map: Map<string, T>, delta: Delta<T>, key: (t: T) => string): T[] => {
    const removed: T[] = [];
    for (const k of delta.remove) {
      const old = map.get(k);
      if (old !== undefined) removed.push(old);
      map.delete(k);
    }
    for (const item of delta.upsert) map.set(key(item), item);
    return removed;
  };

  return {
    get version() {
      return version;
    },
    get revision() {
      return revision;
    },
    workloadByIp: (ip) => [...workloads.values()].find((w) => w.podIp === ip),
    workloads: () => [...workloads.values()],
    serviceByVip: (vip) => [...services.values()].find((s) => s.vip === vip),
    serviceByName: (namespace, name) => services.get(serviceKey({ namespace, name })),
    services: () => [...services.values()],
    endpointsOf: (service) => [...workloads.values()].filter((w) => w.services.includes(serviceKey(service))),
    waitForWorkload(ip, timeoutMs) {
      const known = (): boolean => [...workloads.values()].some((w) => w.podIp === ip);
      if (known()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const finish = (result: boolean): void => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(result);
        };
        const check = (): void => {
          if (known()) finish(true);
        };
        const timer = setTimeout(() => {
          finish(false);
        }, timeoutMs);
        waiters.add(check);
      });
    },
    apply(message) {
      validate(message);
      const becameUnhealthy = message.workloads.upsert.filter(
        (w) => w.status === 'UNHEALTHY' && workloads.get(w.uid)?.status === 'HEALTHY',
      );
      const removed = applyDelta(workloads, message.workloads, (w) => w.uid);
      applyDelta(services, message.services, serviceKey);
      version = message.version;
      revision++;
      for (const wake of [...waiters]) wake();
      return { becameUnhealthy, removed };
    },
  };
}
