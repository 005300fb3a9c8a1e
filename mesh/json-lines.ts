import { StringDecoder } from 'node:string_decoder';

/** A line longer than this without a newline is garbage, not a message (a full snapshot is far smaller). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Newline-delimited JSON framing, shared by the node agent and discovery protocols. Bytes are
 * decoded with a StringDecoder, so a multi-byte character split across chunks arrives whole. The
 * first line that is not a JSON object, or a line past MAX_LINE_BYTES, goes to `onBadLine` with the
 * reason, and the decoder then ignores the rest of the stream (its peer does not speak the
 * protocol); nothing is thrown into the socket's event handler. The caller answers as its protocol
 * allows: every user here closes the connection.
 */
export function createLineDecoder(
  onMessage: (message: Record<string, unknown>) => void,
  onBadLine: (reason: string) => void = () => undefined,
): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  let refused = false;
  return (chunk) => {
    if (refused) return;
    buffered += decoder.write(chunk);
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const problem = line.trim() === '' ? undefined : deliver(line, onMessage);
      if (problem !== undefined) {
        refused = true;
        buffered = '';
        onBadLine(problem);
        return;
      }
      newline = buffered.indexOf('\n');
    }
    if (Buffer.byteLength(buffered) > MAX_LINE_BYTES) {
      refused = true;
      buffered = '';
      onBadLine(`a line longer than ${String(MAX_LINE_BYTES)} bytes`);
    }
  };
}

/** Hands `line` to `onMessage` if it is a JSON object; otherwise says what is wrong with it. */
function deliver(line: string, onMessage: (message: Record<string, unknown>) => void): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return `not JSON: ${JSON.stringify(line.slice(0, 80))}`;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return `not a JSON object: ${JSON.stringify(line.slice(0, 80))}`;
  onMessage(message as Record<string, unknown>);
  return undefined;
}

/** Lines refused by any server's decoder in this process, by protocol (for the process's own stats). */
export const badLinesByProtocol = new Map<string, number>();

/**
 * A server's answer to a bad line: the peer does not speak the protocol, so the connection is closed
 * (the server and its other connections go on) and the line is counted.
 */
export function closeOnBadLine(socket: { destroy(): void }, protocol: string): (reason: string) => void {
  return () => {
    badLinesByProtocol.set(protocol, (badLinesByProtocol.get(protocol) ?? 0) + 1);
    socket.destroy();
  };
}

export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Messages sent on a JSON-lines stream that wait for the peer's answer, by the id the answer names
 * (discovery's nonce, the node agent's seq): each waits until it is answered, or until the stream
 * closes, when every one still waiting gets the close's value. Both servers keep one per peer.
 */
export interface PendingAnswers<Id, A> {
  /** Waits for the answer to `id`; called before the message is written, so no answer is missed. */
  expect(id: Id): Promise<A>;
  /** The peer answered `id` (an answer to nothing pending is ignored). */
  answer(id: Id, value: A): void;
  /** The stream closed: every one still waiting gets `value`. */
  close(value: A): void;
}

export function createPendingAnswers<Id, A>(): PendingAnswers<Id, A> {
  const waiting = new Map<Id, (value: A) => void>();
  return {
    expect: (id) =>
      new Promise<A>((resolve) => {
        waiting.set(id, resolve);
      }),
    answer(id, value) {
      waiting.get(id)?.(value);
      waiting.delete(id);
    },
    close(value) {
      for (const resolve of waiting.values()) resolve(value);
      waiting.clear();
    },
  };
}
