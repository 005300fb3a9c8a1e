/**
 * Facts about go-httpbin (mccutchen/go-httpbin v2.26.0, the workload Istio's samples/httpbin runs)
 * that the harness reasons with. httpbin/cmd/cmd.go: `defaultSrvReadTimeout = 5 * time.Second`, and no
 * IdleTimeout, so Go's http.Server closes a keep-alive connection after it sat idle 5 s (ReadTimeout
 * bounds the wait for the next request).
 */
export const GO_HTTPBIN_READ_TIMEOUT_MS = 5000;
