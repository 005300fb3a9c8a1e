// What one node-agent connection's snapshot says against the pods ztunnel holds. istio/ztunnel
// keeps serving its pods while the node agent (istio-cni) is away and, on each new connection,
// takes the agent's snapshot afresh: every pod added or kept before SnapshotSent stays, every other
// pod it held is drained then, since it was deleted while nobody could say so (src/inpod/
// statemanager.rs at 62d8265: reset_snapshot, process_msg, reconcile; workloadmanager.rs run_internal
// resets it per stream and is not ready until the snapshot is in).
export interface SnapshotReconciler {
  /** A new connection: nothing of its snapshot seen yet. */
  newStream(): void;
  /** An add or a keep before SnapshotSent names a pod the agent still has. */
  named(uid: string): void;
  /** A del: the pod is gone whatever the snapshot said. */
  deleted(uid: string): void;
  /** Whether this connection's SnapshotSent has come. */
  readonly snapshotReceived: boolean;
  /**
   * SnapshotSent: of `held`, the pods the snapshot did not name, to remove. A second one on the
   * same connection is the agent's protocol error (statemanager.rs), thrown.
   */
  snapshotSent(held: Iterable<string>): string[];
}

export function createSnapshotReconciler(): SnapshotReconciler {
  const names = new Set<string>();
  let received = false;
  return {
    newStream() {
      names.clear();
      received = false;
    },
    named(uid) {
      if (!received) names.add(uid);
    },
    deleted(uid) {
      names.delete(uid);
    },
    get snapshotReceived() {
      return received;
    },
    snapshotSent(held) {
      if (received) throw new Error('pod snapshot received already');
      received = true;
      const gone = [...held].filter((uid) => !names.has(uid));
      names.clear();
      return gone;
    },
  };
}
