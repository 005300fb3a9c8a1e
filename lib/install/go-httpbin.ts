import type { GoToolSpec } from './go-tool.ts';

/**
 * go-httpbin, the workload Istio's samples/httpbin runs (mccutchen/go-httpbin); MIT. Built from the
 * module only (its `-version` says "dev" without release ldflags), so it is always the tools-folder
 * copy, checked by its module hash.
 */
export const GO_HTTPBIN: GoToolSpec = {
  name: 'go-httpbin',
  installPath: 'github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin',
  module: 'github.com/mccutchen/go-httpbin/v2',
  version: '2.26.0',
  moduleSum: 'h1:JbKBrX9F9wjwXedIJkWe+jjYRjysHZrWKgJRPDSIxVw=',
  binName: 'go-httpbin',
  why: 'the httpbin workload',
};
