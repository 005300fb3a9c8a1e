export { ensureZdsRelay, zdsRelayPath, ZDS_RELAY_SOURCE } from './relay-binary.ts';
export {
  decodeZdsAck,
  decodeZdsHello,
  decodeZdsRequest,
  encodeZdsAck,
  encodeZdsHello,
  encodeZdsRequest,
  ZDS_VERSION_V1,
} from './zds-messages.ts';
export type { ZdsAck, ZdsRequest, ZdsWorkloadInfo } from './zds-messages.ts';
export { startZdsNodeAgent, ZDS_ACK_TIMEOUT_MS } from './zds-node-agent.ts';
export type { ZdsAgentEvent, ZdsNodeAgent, ZdsNodeAgentOptions, ZdsPod } from './zds-node-agent.ts';
export { startZdsRelay } from './zds-relay.ts';
export type {
  StartZdsRelayOptions,
  ZdsDatagram,
  ZdsReceivedFd,
  ZdsRelay,
  ZdsRelayConnection,
} from './zds-relay.ts';
