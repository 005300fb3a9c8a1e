export { DEFAULT_ACCEPTOR_SOCKETS, startAcceptors } from './acceptors.ts';
export { appendedLines } from './appended-lines.ts';
export { componentAt, nameComponent } from './components.ts';
export type { AppendedLines } from './appended-lines.ts';
export type { Acceptors } from './acceptors.ts';
export { createManualClock, createSystemClock, fromWallMs, toWallMs, waitAtMost } from './clock.ts';
export type { Clock, ManualClock } from './clock.ts';
export type { Flag } from './flag.ts';
export { badInput, ErrorCode, EXIT, HarnessError, isHarnessError } from './errors.ts';
export { createLogger, formatFields, parseLogLevel } from './log.ts';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log.ts';
export { consentToHostChange, grantHostChanges } from './host-consent.ts';
export type { ConsentIo, HostChange } from './host-consent.ts';
export { makeDirectory } from './make-directory.ts';
export { requiredEnv } from './required-env.ts';
export {
  parsePlantedRegression,
  PLANTED_DEADLINE_EARLY_MS,
  PLANTED_REGRESSION_ENV,
  PLANTED_REGRESSIONS,
  PLANTED_REMOVAL_HOLD_MS,
} from './planted-regression.ts';
export type { PlantedRegression } from './planted-regression.ts';
export { DEFAULT_TOOLS_DIR, PROJECT_ROOT } from './paths.ts';
export { createProgress, formatDuration, startTicker } from './progress.ts';
export type { Progress, ProgressOptions } from './progress.ts';
