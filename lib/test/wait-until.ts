/** Polls `predicate` every 20 ms; rejects naming `what` if it is not true within `timeoutMs`. */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > end) throw new Error(`${what} not within ${String(timeoutMs)} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
