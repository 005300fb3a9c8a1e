/** Envoy's local replies for the failures the gateway can see, with the response flags it logs. */
export interface LocalReply {
  status: number;
  flags: string[];
  body: string;
}

const BEFORE_HEADERS = 'upstream connect error or disconnect/reset before headers.';

export const LOCAL_REPLIES = {
  /** UH: no healthy upstream host in the cluster. */
  noHealthyUpstream: { status: 503, flags: ['UH'], body: 'no healthy upstream' },
  /** UF: the upstream connection could not be made (incl. a CONNECT ztunnel answered 503). */
  connectFailure: { status: 503, flags: ['UF'], body: `${BEFORE_HEADERS} reset reason: connection failure` },
  /** UC: the upstream connection ended before response headers. */
  connectionTermination: {
    status: 503,
    flags: ['UC'],
    body: `${BEFORE_HEADERS} reset reason: connection termination`,
  },
} as const satisfies Record<string, LocalReply>;

/** URX is added when the last attempt failed after the retry budget was spent. */
export function withRetriesExhausted(reply: LocalReply, retries: number): LocalReply {
  return retries > 0 ? { ...reply, flags: [...reply.flags, 'URX'] } : reply;
}
