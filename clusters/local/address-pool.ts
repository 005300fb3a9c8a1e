import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { badInput } from '../../lib/index.ts';

/**
 * Loopback addresses for one local cluster: Linux routes all of 127.0.0.0/8 to `lo`, so every node,
 * pod and service gets its own address. The cluster owns 127.<block>.0.0/16:
 *   127.B.0.1-99     nodes            127.B.0.200   the control plane (istiod's address)
 *   127.B.1.x        service VIPs     127.B.2-127.x pod IPs
 *   127.B.128-253.x  meshed apps' private addresses (same offset as the pod IP)
 * Addresses are handed out in order and never reused (Kubernetes does not recycle pod IPs quickly).
 */
export interface AddressPool {
  block: number;
  node(index: number): string;
  controlPlane(): string;
  nextVip(): string;
  nextPod(): { podIp: string; appIp: string };
  /**
   * A pod in a network namespace of its own: its address on node n's bridge (netns world), when
   * the cluster has one (attachNetns); the app binds the pod's own address there.
   */
  nextNetnsPod(node: number): string;
  attachNetns(reserve: (node: number) => string): void;
}

const PODS_PER_BLOCK = 126 * 254;

/** The address blocks there are: 127.<block>.0.0/16 for block 1-254 (127.0 holds 127.0.0.1). */
export const ADDRESS_BLOCKS = { min: 1, max: 254 } as const;

export function createAddressPool(block: number): AddressPool {
  if (!Number.isInteger(block) || block < ADDRESS_BLOCKS.min || block > ADDRESS_BLOCKS.max)
    throw badInput('the address block', 'an integer 1-254 (127.<block>.0.0/16)', block);
  let vips = 0;
  let pods = 0;
  let netns: ((node: number) => string) | undefined;
  return {
    attachNetns: (reserve) => {
      netns = reserve;
    },
    nextNetnsPod: (node) => {
      if (!netns)
        throw new Error('a pod asks for a network namespace, but this cluster was started without them');
      return netns(node);
    },
    block,
    node: (index) => `127.${String(block)}.0.${String(index + 1)}`,
    controlPlane: () => `127.${String(block)}.0.200`,
    nextVip: () => `127.${String(block)}.1.${String(++vips)}`,
    nextPod: () => {
      if (pods >= PODS_PER_BLOCK)
        throw new Error(`address block 127.${String(block)}.0.0/16 has no pod addresses left`);
      const third = 2 + Math.floor(pods / 254);
      const fourth = 1 + (pods % 254);
      pods++;
      return {
        podIp: `127.${String(block)}.${String(third)}.${String(fourth)}`,
        appIp: `127.${String(block)}.${String(third + 126)}.${String(fourth)}`,
      };
    },
  };
}

/** A block for a new cluster: random in 150-249, so concurrent clusters (tests) rarely collide. */
export function pickAddressBlock(random: () => number = Math.random): number {
  return 150 + Math.floor(random() * 100);
}

/** The local backend's option for the block (`--local-address-block`), and its key in settings. */
export const ADDRESS_BLOCK_KEY = 'local-address-block';

/** 1-254: 127.0.0.0/16 holds 127.0.0.1, which other programs listen on. */
export function parseAddressBlock(raw: string): number {
  const block = Number(raw);
  const { min, max } = ADDRESS_BLOCKS;
  if (!/^\d+$/.test(raw.trim()) || block < min || block > max)
    throw badInput(
      `--${ADDRESS_BLOCK_KEY}`,
      `an integer ${String(min)}-${String(max)} (the cluster takes 127.<n>.0.0/16)`,
      raw,
    );
  return block;
}

/**
 * The local backend's preflight: a listener on the block's first node address and a connection to
 * it. Linux routes all of 127.0.0.0/8 to `lo`; macOS, for one, has only 127.0.0.1 unless each
 * address is aliased, and there every pod would fail to start.
 */
export async function checkLoopbackBlock(pool: AddressPool): Promise<void> {
  const host = pool.node(0);
  const server = createServer((socket) => socket.end());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: 0 }, resolve);
    });
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host, port }, () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
  } catch (err) {
    throw badInput(
      'the local backend',
      `able to use ${host} (every address of 127.0.0.0/8 on the loopback interface, as Linux has it)`,
      (err as Error).message,
      'run on Linux, or give the loopback interface the 127.<block>.0.0/16 addresses, or use --backend kind',
    );
  } finally {
    server.close();
  }
}
