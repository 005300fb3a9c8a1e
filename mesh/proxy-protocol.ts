import { isIPv4 } from 'node:net';

/**
 * PROXY protocol v2 (haproxy's proxy-protocol.txt, section 2.2), TCP over IPv4 only: how a captured
 * client tells ztunnel's outbound listener (:15001) the destination it meant, in place of the
 * original-destination lookup that in-pod iptables redirection gives real ztunnel.
 */
const SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const HEADER_LENGTH = 16 + 12;

export interface Endpoint {
  ip: string;
  port: number;
}

export function encodeProxyV2(src: Endpoint, dst: Endpoint): Buffer {
  if (!isIPv4(src.ip) || !isIPv4(dst.ip))
    throw new Error(`PROXY v2 here carries IPv4 only, got ${src.ip} -> ${dst.ip}`);
  const header = Buffer.alloc(HEADER_LENGTH);
  SIGNATURE.copy(header, 0);
  header[12] = 0x21; // version 2, command PROXY
  header[13] = 0x11; // AF_INET, STREAM
  header.writeUInt16BE(12, 14);
  Buffer.from(src.ip.split('.').map(Number)).copy(header, 16);
  Buffer.from(dst.ip.split('.').map(Number)).copy(header, 20);
  header.writeUInt16BE(src.port, 24);
  header.writeUInt16BE(dst.port, 26);
  return header;
}

export type ProxyHeader = { src: Endpoint; dst: Endpoint; length: number };

/** The header at the start of `data`: undefined while incomplete; throws when it is not one. */
export function parseProxyV2(data: Buffer): ProxyHeader | undefined {
  if (data.length < 16) {
    if (!SIGNATURE.subarray(0, data.length).equals(data.subarray(0, Math.min(data.length, 12)))) {
      throw new Error('not a PROXY protocol v2 header');
    }
    return undefined;
  }
  if (!data.subarray(0, 12).equals(SIGNATURE) || data[12] !== 0x21)
    throw new Error('not a PROXY protocol v2 header');
  if (data[13] !== 0x11)
    throw new Error(`unsupported PROXY v2 family/protocol 0x${(data[13] ?? 0).toString(16)}`);
  const length = 16 + data.readUInt16BE(14);
  if (data.length < length) return undefined;
  const ip = (at: number): string => [...data.subarray(at, at + 4)].join('.');
  return {
    src: { ip: ip(16), port: data.readUInt16BE(24) },
    dst: { ip: ip(20), port: data.readUInt16BE(26) },
    length,
  };
}
