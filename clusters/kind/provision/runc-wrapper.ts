import { CAPABILITY_NAMES } from './capabilities.ts';

/** Where the wrapper goes in our node image (containerd's runc `BinaryName`, node-image/containerd-config.ts). */
export const NODE_RUNC_WRAPPER = '/usr/local/sbin/runc-harness';

/**
 * An OCI runtime in front of runc for machines whose capability bounding set lacks capabilities
 * (this project's machines lack CAP_SYS_RESOURCE). A no-op where nothing is missing: it execs runc
 * with its arguments untouched. Where something is missing, before `create`/`run` (the bundle's
 * config.json) and `exec` (the --process file) it
 * - drops the capabilities the bounding set lacks: Docker asks for all of them for `--privileged`
 *   (kind's nodes), containerd for a privileged pod (kube-proxy), and runc cannot grant them
 *   ("unable to apply caps: operation not permitted");
 * - raises a negative `oomScoreAdj` to 0 when CAP_SYS_RESOURCE is missing: without it no process may
 *   lower its oom_score_adj, and the kubelet asks -998 for every pod sandbox, so runc fails with
 *   "can't get final child's PID from pipe: EOF". Raising is allowed; pods at 0 or above are untouched.
 * Registered with our own dockerd (`runtimes`, engine-config.ts) and with containerd in the node image.
 * HARNESS_RUNC, HARNESS_CAPBND and HARNESS_CAP_LAST override runc's path and the procfs reads (tests).
 */
export function runcWrapperScript(): string {
  const names = CAPABILITY_NAMES.join(' ');
  return `#!/bin/sh
# ztunnel-harness: runc behind a wrapper that drops the capabilities this machine's bounding set lacks
# and raises negative oomScoreAdj to 0 where CAP_SYS_RESOURCE is missing (clusters/kind/provision/runc-wrapper.ts).
set -eu
runc="\${HARNESS_RUNC:-/usr/sbin/runc}"
capbnd="\${HARNESS_CAPBND:-$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)}"
last="\${HARNESS_CAP_LAST:-$(cat /proc/sys/kernel/cap_last_cap 2>/dev/null || echo 40)}"
drop=""
i=0
for name in ${names}; do
  [ "$i" -gt "$last" ] && break
  if [ $(( (0x$capbnd >> i) & 1 )) -eq 0 ]; then drop="$drop \\"$name\\""; fi
  i=$((i + 1))
done
[ -z "$drop" ] && exec "$runc" "$@"
raiseoom=false
case "$drop" in *CAP_SYS_RESOURCE*) raiseoom=true ;; esac
command=""
bundle=""
process=""
prev=""
for arg in "$@"; do
  case "$prev" in
    --bundle | -b) bundle="$arg" ;;
    --process | -p) process="$arg" ;;
  esac
  case "$arg" in
    --bundle=*) bundle="\${arg#--bundle=}" ;;
    --process=*) process="\${arg#--process=}" ;;
    create | run | exec) [ -z "$command" ] && command="$arg" ;;
  esac
  prev="$arg"
done
fix() {
  jq --argjson drop "[$(echo "$drop" | sed 's/^ //; s/ /,/g')]" --argjson raiseoom "$raiseoom" '
    def fixprocess:
      (if .capabilities then .capabilities |= with_entries(.value |= (if type == "array" then map(select(. as $c | ($drop | any(. == $c)) | not)) else . end)) else . end)
      | (if $raiseoom and ((.oomScoreAdj // 0) < 0) then .oomScoreAdj = 0 else . end);
    if has("ociVersion") then (if .process then .process |= fixprocess else . end) else fixprocess end
  ' "$1" > "$1.harness-tmp"
  mv "$1.harness-tmp" "$1"
}
case "$command" in
  create | run) fix "\${bundle:-.}/config.json" ;;
  exec) [ -n "$process" ] && fix "$process" ;;
esac
exec "$runc" "$@"
`;
}
