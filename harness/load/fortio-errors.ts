import type { NoResponseKind } from './k6-records.ts';

/**
 * fortio logs one error line per call that got no response (fhttp/http_client.go: "Unable to
 * connect", "Read error", "Timeout error (incomplete/invalid response)", "Unable to write", ...), as
 * structured JSON on stderr: `{"ts":1795520420.253973,"level":"err",...,"msg":"Unable to connect",
 * "err":"dial tcp ...: connect: connection refused","thread":0,...}`. Its access log says only
 * `"details":"-1"` for such a call, so the error line of the same thread inside the call's time
 * window tells refused from reset, EOF and timeout (fortio-error-index.ts).
 *
 * Its fast client also retries a call once on a new connection when a reused connection fails before
 * the first byte of the answer ("Closing dead socket", fhttp/http_client.go StreamFetch and
 * readResponse), logged at info level: the call is counted once, by the retry's outcome, and the first
 * attempt is a failure only the server side (the gateway's log) saw (fortio-log.ts counts them).
 */
export function kindOfFortioError(msg: string, err: string): NoResponseKind {
  const text = `${msg} ${err}`;
  if (/connection refused/.test(text)) return 'refused';
  if (/connection reset by peer|broken pipe/.test(text)) return 'reset';
  if (/timeout|deadline exceeded/i.test(text)) return 'timeout';
  if (/\bEOF\b/.test(text)) return 'eof';
  return 'other';
}
