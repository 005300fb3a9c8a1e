/**
 * How the workload meets SIGTERM (--app-shutdown): immediate, go-httpbin's http.Server.Shutdown (stop
 * accepting at once); echo, Istio's echo server's drain (echo-drain.ts), which the fault server runs
 * with SHUTDOWN=echo.
 */
export const APP_SHUTDOWNS = ['immediate', 'echo'] as const;
export type AppShutdown = (typeof APP_SHUTDOWNS)[number];
