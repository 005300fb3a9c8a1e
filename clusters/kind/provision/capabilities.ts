import { readFile } from 'node:fs/promises';

/** Linux capability names by number (include/uapi/linux/capability.h, 0 ... CAP_LAST_CAP 40). */
export const CAPABILITY_NAMES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_DAC_READ_SEARCH',
  'CAP_FOWNER',
  'CAP_FSETID',
  'CAP_KILL',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETPCAP',
  'CAP_LINUX_IMMUTABLE',
  'CAP_NET_BIND_SERVICE',
  'CAP_NET_BROADCAST',
  'CAP_NET_ADMIN',
  'CAP_NET_RAW',
  'CAP_IPC_LOCK',
  'CAP_IPC_OWNER',
  'CAP_SYS_MODULE',
  'CAP_SYS_RAWIO',
  'CAP_SYS_CHROOT',
  'CAP_SYS_PTRACE',
  'CAP_SYS_PACCT',
  'CAP_SYS_ADMIN',
  'CAP_SYS_BOOT',
  'CAP_SYS_NICE',
  'CAP_SYS_RESOURCE',
  'CAP_SYS_TIME',
  'CAP_SYS_TTY_CONFIG',
  'CAP_MKNOD',
  'CAP_LEASE',
  'CAP_AUDIT_WRITE',
  'CAP_AUDIT_CONTROL',
  'CAP_SETFCAP',
  'CAP_MAC_OVERRIDE',
  'CAP_MAC_ADMIN',
  'CAP_SYSLOG',
  'CAP_WAKE_ALARM',
  'CAP_BLOCK_SUSPEND',
  'CAP_AUDIT_READ',
  'CAP_PERFMON',
  'CAP_BPF',
  'CAP_CHECKPOINT_RESTORE',
] as const;

/**
 * The capabilities up to `lastCap` (/proc/sys/kernel/cap_last_cap) that the bounding set (`CapBnd:`
 * of /proc/self/status, hex) lacks. Docker asks for every capability it knows for a `--privileged`
 * container, and runc fails ("unable to apply caps: operation not permitted") when one of them is
 * outside the bounding set, as CAP_SYS_RESOURCE is on this project's machines.
 */
export function missingCapabilities(capBndHex: string, lastCap: number): string[] {
  const bits = BigInt(`0x${capBndHex.trim() || '0'}`);
  const top = Math.min(lastCap, CAPABILITY_NAMES.length - 1);
  return CAPABILITY_NAMES.slice(0, top + 1).filter((_, i) => (bits & (1n << BigInt(i))) === 0n);
}

/** This process's missing capabilities, read from procfs. */
export async function readMissingCapabilities(): Promise<string[]> {
  const status = await readFile('/proc/self/status', 'utf8');
  const capBnd = /^CapBnd:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0';
  const lastCap = Number((await readFile('/proc/sys/kernel/cap_last_cap', 'utf8')).trim());
  return missingCapabilities(capBnd, Number.isFinite(lastCap) ? lastCap : CAPABILITY_NAMES.length - 1);
}
