/**
 * Envoy's LEAST_REQUEST load balancer (Istio's default): two random hosts, the one with fewer active
 * requests. Retries skip hosts already tried (previous_hosts), when there is another to pick.
 */
export function pickLeastRequest<T extends { key: string }>(
  hosts: readonly T[],
  active: (host: T) => number,
  tried: ReadonlySet<string>,
  random: () => number = Math.random,
): T | undefined {
  const fresh = hosts.filter((h) => !tried.has(h.key));
  const pool = fresh.length > 0 ? fresh : hosts;
  const a = pool[Math.floor(random() * pool.length)];
  const b = pool[Math.floor(random() * pool.length)];
  if (!a || !b) return a ?? b;
  return active(b) < active(a) ? b : a;
}
