# The TypeScript programs of the system under test, packaged for the kind backend on Node 24 (the
# same runtime as `npm run ...` here: Node strips the types, no build step). One stage per image:
#   docker build --target ztunnel --tag ztunnel-harness/ztunnel:dev .   (clusters/kind/kind-images.ts)
FROM node:24-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# Runtime dependencies only; the `node` devDependency (Node 24 for Node 20 machines) is not needed.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY lib ./lib
COPY mesh ./mesh
COPY ztunnel ./ztunnel
COPY apps ./apps
USER node

FROM base AS ztunnel
ENTRYPOINT ["node", "ztunnel/main.ts"]

# A test instrument (apps/fault-server); the experiments' httpbin is go-httpbin's own image.
FROM base AS fault-server
ENTRYPOINT ["node", "apps/fault-server/main.ts"]

# istio-proxy (Istio's proxyv2) for the gateway and the sidecar: our pilot-agent and the official
# Envoy binary from its own image at the version the local backend runs (harness/tools/envoy.ts).
# The manifests pass `proxy router` or `proxy sidecar`.
FROM envoyproxy/envoy:v1.40.0 AS envoy
FROM base AS proxyv2
COPY --from=envoy /usr/local/bin/envoy /usr/local/bin/envoy
ENV ENVOY_BINARY=/usr/local/bin/envoy
ENTRYPOINT ["node", "mesh/pilot-agent/main.ts"]

FROM base AS client
ENTRYPOINT ["node", "apps/client/main.ts"]

# istiod: the control plane reading pods and services from the Kubernetes API (client-node informers;
# RBAC in clusters/kind/kind-manifests.ts), discovery on :15010, Envoy's mTLS ADS on :15011, the CA on :15012.
FROM base AS istiod
ENTRYPOINT ["node", "mesh/control-plane/main.ts"]
