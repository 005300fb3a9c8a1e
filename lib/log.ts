import { inspect } from 'node:util';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, unknown>>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` as well. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** Who is speaking: `harness`, `ztunnel`, `k6`... */
  component: string;
  level?: LogLevel;
  /** `text` is ztunnel's shape (`<time> <level> <component> <msg> k=v ...`); `json` is one object a line. */
  format?: 'text' | 'json';
  write?: (line: string) => void;
  /** Unix ms for the timestamp; injectable for tests. */
  wallNow?: () => number;
}

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return value !== undefined && value in RANK ? (value as LogLevel) : fallback;
}

export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? parseLogLevel(process.env['LOG_LEVEL']);
  const format = options.format ?? 'text';
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const wallNow = options.wallNow ?? Date.now;

  const make = (bound: LogFields): Logger => {
    const emit = (at: LogLevel, msg: string, fields: LogFields = {}): void => {
      if (RANK[at] < RANK[level]) return;
      const time = new Date(wallNow()).toISOString();
      const all = { ...bound, ...fields };
      write(
        format === 'json'
          ? JSON.stringify({ time, level: at, component: options.component, msg, ...all })
          : `${time} ${at.padEnd(5)} ${options.component} ${msg}${formatFields(all)}`,
      );
    };
    return {
      debug: (msg, fields) => {
        emit('debug', msg, fields);
      },
      info: (msg, fields) => {
        emit('info', msg, fields);
      },
      warn: (msg, fields) => {
        emit('warn', msg, fields);
      },
      error: (msg, fields) => {
        emit('error', msg, fields);
      },
      child: (fields) => make({ ...bound, ...fields }),
    };
  };
  return make({});
}

/** ` a=1 b="two words"`: values with spaces or quotes are JSON-quoted, like ztunnel's access log. */
export function formatFields(fields: LogFields): string {
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out += ` ${key}=${formatValue(value)}`;
  }
  return out;
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  const text = typeof value === 'string' ? value : inspect(value);
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}
