// What makes a namespace a run's, beyond doubt (issue 62): its name has the harness's prefix, it
// carries the owner label and a run label equal to its own name, and an expiry annotation that a
// live run keeps pushing forward (a lease, as Kubernetes' coordination Leases are renewed). A
// namespace that lacks any of these is not ours, whatever its labels say; one whose expiry is in
// the future belongs to a run that is still live. `cleanup` deletes only what is ours and over.

import { DNS_LABEL } from './cluster-flags.ts';

/** The label every object of ours carries (Kubernetes' recommended label). */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'ztunnel-harness';
/** Which run made it (its namespace's name). */
export const RUN_LABEL = 'ztunnel-harness/run';
/** The selector that finds every candidate (each then checked by ownershipOf). */
export const OWNED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
/** Every run namespace's name starts so (`ztunnel-harness-<time>-<random>`). */
export const RUN_NAMESPACE_PREFIX = 'ztunnel-harness-';
/** When the run's lease ends unless it is renewed (RFC 3339, UTC). */
export const EXPIRES_ANNOTATION = 'ztunnel-harness/expires-at';
/** How far ahead each renewal sets the expiry: a killed run's namespace is expired this long after. */
export const LEASE_MS = 5 * 60_000;
/** How often a live run renews (a fifth of the lease: four renewals may fail before it lapses). */
export const RENEW_EVERY_MS = 60_000;

export interface NamespaceFacts {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Deleted already, its objects still going. */
  isTerminating: boolean;
}

export type Ownership =
  { ours: false; why: string } | { ours: true; expiresAtMs: number; live: boolean; isTerminating: boolean };

/** The annotation's value for a lease renewed at `wallMs`. */
export const expiryAt = (wallMs: number): string => new Date(wallMs + LEASE_MS).toISOString();

/** Whether `ns` is a run's (every mark present and consistent) and whether that run is live at `nowWallMs`. */
export function ownershipOf(ns: NamespaceFacts, nowWallMs: number): Ownership {
  if (!ns.name.startsWith(RUN_NAMESPACE_PREFIX))
    return { ours: false, why: `its name lacks the prefix ${RUN_NAMESPACE_PREFIX}` };
  if (ns.labels[MANAGED_BY_LABEL] !== MANAGED_BY)
    return { ours: false, why: `it lacks the label ${MANAGED_BY_LABEL}=${MANAGED_BY}` };
  if (ns.labels[RUN_LABEL] !== ns.name)
    return { ours: false, why: `its label ${RUN_LABEL} is not its own name` };
  const raw = ns.annotations[EXPIRES_ANNOTATION];
  const expiresAtMs = raw === undefined ? Number.NaN : Date.parse(raw);
  if (!Number.isFinite(expiresAtMs))
    return { ours: false, why: `it lacks a valid ${EXPIRES_ANNOTATION} annotation` };
  return { ours: true, expiresAtMs, live: expiresAtMs > nowWallMs, isTerminating: ns.isTerminating };
}

/** A run namespace name given by a caller: it must be one `ownershipOf` accepts. */
export function assertRunNamespaceName(name: string): void {
  if (!name.startsWith(RUN_NAMESPACE_PREFIX) || !DNS_LABEL.test(name))
    throw new Error(
      `run namespace ${JSON.stringify(name)} is not a DNS label starting ${RUN_NAMESPACE_PREFIX}`,
    );
}
