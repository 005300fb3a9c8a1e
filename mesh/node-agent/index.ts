export { startNodeAgentServer } from './node-agent-server.ts';
export type { NodeAgentServer } from './node-agent-server.ts';
export { closeOnBadLine, createLineDecoder, encodeLine, NODE_AGENT_PROTOCOL_VERSION } from './protocol.ts';
export type { AgentMessage, ZtunnelMessage } from './protocol.ts';
export { startSharedZdsNodeAgent } from './zds-agent-server.ts';
