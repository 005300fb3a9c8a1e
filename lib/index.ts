export { DEFAULT_ACCEPTOR_SOCKETS, startAcceptors } from './acceptors.ts';
export type { Acceptors } from './acceptors.ts';
export { createManualClock, createSystemClock, fromWallMs, toWallMs, waitAtMost } from './clock.ts';
export type { Clock, ManualClock } from './clock.ts';
export { badInput, ErrorCode, HarnessError, isHarnessError } from './errors.ts';
export { createLogger, formatFields, parseLogLevel } from './log.ts';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log.ts';
export { createProgress, formatDuration, startTicker } from './progress.ts';
export type { Progress, ProgressOptions } from './progress.ts';
