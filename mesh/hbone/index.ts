export { openHboneSession, openTunnel } from './hbone-client.ts';
export type { Tunnel } from './hbone-client.ts';
