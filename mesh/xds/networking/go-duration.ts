const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;

/**
 * A VirtualService duration (`timeout`, `retries.perTryTimeout`) in milliseconds, or undefined when
 * it is not one. Written as Go's time.ParseDuration reads it ("1.5s", "100ms", "1m30s", "0"): istiod
 * decodes the object's JSON with golang/protobuf's jsonpb (pkg/util/protomarshal ApplyJSON), whose
 * Duration case calls time.ParseDuration (jsonpb/decode.go), and the CRD checks it with CEL's
 * duration() (customresourcedefinitions.gen.yaml). A negative duration is refused.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  PART.lastIndex = 0;
  let ms = 0;
  let at = 0;
  for (let m = PART.exec(text); m; m = PART.exec(text)) {
    ms += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? Number.NaN);
    at = PART.lastIndex;
  }
  return at > 0 && at === text.length && Number.isFinite(ms) ? ms : undefined;
}
