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
  /**
   * `text`: `<time> <level> <component> <msg> k=v ...`; `json`: one object a line; `istio`: ztunnel's
   * own (src/telemetry.rs IstioFormat): `<time>\t<level>\t<target>\t<msg>\tk=v ...`, the target
   * being the `scope` field (e.g. `access`) or the component, string values quoted as Rust's Debug
   * quotes them, addresses and numbers bare.
   */
  format?: 'text' | 'json' | 'istio';
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
          : format === 'istio'
            ? formatIstioLine(time, at, options.component, msg, all)
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

/** A socket address or an IP (Display in Rust, so printed bare). */
const ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])(?::\d+)?$/i;

function istioValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return ADDRESS.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

function formatIstioLine(
  time: string,
  level: LogLevel,
  component: string,
  msg: string,
  fields: LogFields,
): string {
  const { scope, ...rest } = fields;
  const target = typeof scope === 'string' ? scope : component;
  // Rust's SystemTime: microseconds; JavaScript has milliseconds.
  const stamp = time.replace(/Z$/, '000Z');
  const pairs = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${istioValue(v)}`);
  return `${stamp}\t${level}\t${target}\t${msg}${pairs.length > 0 ? `\t${pairs.join(' ')}` : ''}`;
}
