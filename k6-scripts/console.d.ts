// k6 provides `console` (https://grafana.com/docs/k6/latest/javascript-api/#console) but @types/k6
// leaves it to the DOM lib, which would also let browser-only APIs through the type check.
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
};
