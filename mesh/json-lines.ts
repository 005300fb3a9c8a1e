/** Newline-delimited JSON framing, shared by the node agent and discovery protocols. */
export function createLineDecoder(onMessage: (message: unknown) => void): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') onMessage(JSON.parse(line));
      newline = buffered.indexOf('\n');
    }
  };
}

export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
