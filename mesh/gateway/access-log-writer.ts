/**
 * Envoy's file access log: lines are buffered and written by a flush thread when the buffer passes
 * 64 KiB or when the flush timer fires (envoyproxy/envoy source/common/access_log/
 * access_log_manager_impl.cc `AccessLogFileImpl::write`, MIN_FLUSH_SIZE; the timer is Envoy's
 * `--file-flush-interval-msec`, which pilot-agent sets to 1000). Istio's `accessLogFile` is
 * /dev/stdout, the container's log.
 */
export const MIN_FLUSH_BYTES = 64 * 1024;
export const ISTIO_FILE_FLUSH_INTERVAL_MS = 1000;

export interface AccessLogWriter {
  write(line: string): void;
  /** Writes what is buffered now (also on close and at process exit). */
  flush(): void;
  close(): void;
}

export function createAccessLogWriter(
  options: { out?: (text: string) => void; flushIntervalMs?: number; minFlushBytes?: number } = {},
): AccessLogWriter {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  const minFlushBytes = options.minFlushBytes ?? MIN_FLUSH_BYTES;
  let buffered: string[] = [];
  let bytes = 0;
  let closed = false;
  const flush = (): void => {
    if (buffered.length === 0) return;
    const text = buffered.join('');
    buffered = [];
    bytes = 0;
    out(text);
  };
  const timer = setInterval(flush, options.flushIntervalMs ?? ISTIO_FILE_FLUSH_INTERVAL_MS);
  timer.unref();
  const onExit = (): void => {
    flush();
  };
  process.once('exit', onExit);
  return {
    write(line) {
      if (closed) return;
      buffered.push(line, '\n');
      bytes += line.length + 1;
      if (bytes >= minFlushBytes) flush();
    },
    flush,
    close() {
      if (closed) return;
      closed = true;
      flush();
      clearInterval(timer);
      process.off('exit', onExit);
    },
  };
}
