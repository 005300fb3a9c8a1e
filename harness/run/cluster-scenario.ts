import type { ClusterAddresses, ClusterBackend, WorkloadRef } from '../../clusters/backend.ts';
import type { Capability } from '../../clusters/capabilities.ts';
import type { ZtunnelImplName } from '../../clusters/ztunnel-impl.ts';
import type { ClusterObject } from '../../clusters/manifests/index.ts';
import type { Clock, HarnessError } from '../../lib/index.ts';
import type { LoadSpec } from '../load/load-spec.ts';
import type { ExperimentParams, ScenarioDefaults } from '../options/experiment-params.ts';

export type { ScenarioDefaults };

/** How a scenario's calls are made beside its rate and connections (the LoadSpec's fields). */
export type LoadShape = Pick<LoadSpec, 'newConnectionPerRequest' | 'exactCalls' | 'noCatchUp'>;

/**
 * What happens at --restart-at. A rollout restart may restart a second workload at the same moment
 * (`alongside`: ztunnel's DaemonSet while the workload rolls, E1 x E2); the fault is over when both
 * have finished. A delete removes the workload for the rest of the run (istio-cni's DaemonSet, as
 * Istio's TestTrafficWithEstablishedPodsIfCNIMissing does), over once its pods are gone; a workload
 * `alongside` is rollout-restarted at the same moment, so pods start while it is absent.
 */
export type Fault =
  | { kind: 'rollout-restart'; target: WorkloadRef; alongside?: WorkloadRef }
  | { kind: 'delete'; target: WorkloadRef; alongside?: WorkloadRef }
  | { kind: 'scale'; target: WorkloadRef; replicas: number };

/** Something that runs beside k6 from load start to load end (E3's long-lived connections). */
export interface Companion {
  /** Called once k6 has finished; resolves with what it saw. */
  stop(): Promise<CompanionResult>;
}

export interface CompanionResult {
  /** Extra summary-row columns (always the same names for a scenario). */
  columns: Record<string, string | number>;
  /** Lines for the run's stdout. */
  lines: string[];
  /** Failures that count against --max-failed beside k6's. */
  failed: number;
}

export interface CompanionContext {
  backend: ClusterBackend;
  clock: Clock;
  params: ExperimentParams;
  signal: AbortSignal;
}

/** A scenario = topology (manifests) + load (params) + fault schedule + verdict rule. */
export interface ClusterScenario {
  name: string;
  summary: string;
  /** The source document (docs/architecture.md, Experiments: id and seed). */
  source: string;
  manifests(params: ExperimentParams): ClusterObject[];
  fault: Fault;
  /**
   * Default for --max-failed: what the source document says a good run looks like, as a count;
   * undefined where the source judges a fraction instead (defaultThresholds).
   */
  defaultMaxFailed?: number;
  /** Default for --threshold: the source's criterion where it is no count (Istio's success rates). */
  defaultThresholds?: readonly string[];
  defaults?: ScenarioDefaults;
  /** Where k6 sends its requests; default: the gateway at --path. */
  loadTargets?(addresses: ClusterAddresses, params: ExperimentParams): string[];
  /** How its calls are made, where not as the documents' fortio runs (the default: {}). */
  loadShape?: LoadShape;
  companion?(context: CompanionContext): Companion;
  /**
   * The summary-row columns its companion adds (CompanionResult.columns has exactly these), each a
   * measure, with its note for docs/reference.md.
   */
  companionColumns?: Readonly<Record<string, string>>;
  /** Backend capabilities it needs (clusters/capabilities.ts), each with why when more specific. */
  requires?: { capability: Capability; why?: string }[];
  /**
   * The ztunnel implementations besides ours that can carry its traffic and take its fault
   * (clusters/ztunnel-impl.ts), with --mesh ambient: istio in dedicated mode beside each pod serves
   * the pods' rollout (E2); istio-shared, the DaemonSet in shared mode, is reached by the gateway's
   * HBONE on its in-pod :15008 and by plaintext on its :15006 through istio-cni's in-pod rules
   * (mesh/node-agent/inpod-capture.ts).
   */
  ztunnelImpls?: readonly Exclude<ZtunnelImplName, 'ours'>[];
  /** Parameters it cannot run with, as bad input (exit 2); undefined when it can. */
  refuses?(params: ExperimentParams): HarnessError | undefined;
}
