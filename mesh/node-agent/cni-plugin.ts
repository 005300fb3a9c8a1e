// istio-cni's CNI plugin on the node, as its install-cni puts it there (istio/istio
// cni/pkg/install: the binary copied into the node's CNI bin folder, `istio-cni` appended to the
// chain of the node's primary CNI config). Upstream's plugin is a Go binary; ours is a shell script
// run by the node's container runtime with the node's own curl and jq (both in kind's node image).
// On ADD it posts the pod's namespace path, name and IPs to the node agent's `/cmdadd` on
// /var/run/istio-cni/pluginevent.sock (upstream's CNIPluginAddEvent, cni/pkg/plugin/cnieventclient.go
// and cni/pkg/nodeagent/cni-watcher.go) and waits: the sandbox, and so the app, starts only once the
// agent has captured the pod and ztunnel has its listeners in it. It then passes the previous
// plugin's result on, as a chained plugin must. DEL and CHECK do nothing: the agent removes a pod
// when its watch sees it terminal or deleted (cni/pkg/nodeagent/informers.go), as upstream's does.
// Unlike upstream, which fails the ADD of an ambient pod when the agent cannot be reached, it lets
// the pod start when no agent listens (the agent's watch enrols it later, with a window where it is
// not captured), so a node whose agent is gone keeps starting pods.
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The plugin's `type` in the chain, and its file name in the CNI bin folder. */
export const CNI_PLUGIN_NAME = 'istio-cni';
/** Where the agent listens for the plugin (upstream's CNIAgentRunDir + CNIEventSocketName). */
export const PLUGIN_EVENT_SOCKET = '/var/run/istio-cni/pluginevent.sock';
/** Upstream's CNIAddEventPath. */
export const CNI_ADD_EVENT_PATH = '/cmdadd';

export function cniPluginScript(socket = PLUGIN_EVENT_SOCKET): string {
  return `#!/bin/sh
# istio-cni's CNI plugin for ztunnel-harness (written by its node agent: mesh/node-agent/cni-plugin.ts).
set -u
sock=${socket}
case "\${CNI_COMMAND:-}" in
  VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.3.0","0.3.1","0.4.0","1.0.0"]}'; exit 0 ;;
  ADD) ;;
  *) exit 0 ;;
esac
conf=$(cat)
result=$(printf '%s' "$conf" | jq -c '(.prevResult // {}) + {cniVersion: .cniVersion}')
arg() { printf ';%s;' "\${CNI_ARGS:-}" | sed -n "s/.*;$1=\\([^;]*\\);.*/\\1/p"; }
name=$(arg K8S_POD_NAME)
namespace=$(arg K8S_POD_NAMESPACE)
if [ -S "$sock" ]; then
  event=$(printf '%s' "$conf" | jq -c --arg netns "\${CNI_NETNS:-}" --arg name "$name" --arg ns "$namespace" \\
    '{Netns: $netns, PodName: $name, PodNamespace: $ns, IPs: [((.prevResult.ips // [])[]) | {Address: .address}]}')
  if ! out=$(curl -sS --fail-with-body --max-time 30 --unix-socket "$sock" -H 'Content-Type: application/json' \\
      --data-binary "$event" http://istio-cni${CNI_ADD_EVENT_PATH} 2>&1); then
    printf '{"cniVersion":"0.3.1","code":999,"msg":"istio-cni cmdAdd failed to contact node Istio CNI agent","details":%s}\\n' \\
      "$(printf '%s' "$out" | jq -Rs .)"
    exit 1
  fi
else
  echo "istio-cni: no node agent at $sock; $namespace/$name is left to its pod watch" >&2
fi
printf '%s\\n' "$result"
`;
}

/** The conflist without `istio-cni` in its chain, or undefined if it is not there. */
export function unchainedConflist(text: string): string | undefined {
  const conf = JSON.parse(text) as { plugins?: { type?: string }[] };
  const plugins = conf.plugins ?? [];
  if (!plugins.some((p) => p.type === CNI_PLUGIN_NAME)) return undefined;
  return `${JSON.stringify({ ...conf, plugins: plugins.filter((p) => p.type !== CNI_PLUGIN_NAME) }, null, 2)}\n`;
}

/** The conflist with `istio-cni` last in its chain (as install-cni inserts it), or undefined if it is there. */
export function chainedConflist(text: string): string | undefined {
  const conf = JSON.parse(text) as { plugins?: { type?: string }[] };
  const plugins = conf.plugins ?? [];
  if (plugins.some((p) => p.type === CNI_PLUGIN_NAME)) return undefined;
  return `${JSON.stringify({ ...conf, plugins: [...plugins, { type: CNI_PLUGIN_NAME }] }, null, 2)}\n`;
}

/**
 * The plugin written into `binDir` (unless it is there as this agent writes it) and chained into the
 * first .conflist of `confDir` (both the node's folders, mounted into the agent's pod); each written
 * to a temporary file and renamed, so
 * the runtime never reads half a file. Returns the conflist's path, or undefined while the node has
 * none yet (its primary CNI writes it once the node has a pod CIDR).
 */
export async function installCniPlugin(dirs: {
  binDir: string;
  confDir: string;
}): Promise<string | undefined> {
  const plugin = join(dirs.binDir, CNI_PLUGIN_NAME);
  const script = cniPluginScript();
  if ((await readFile(plugin, 'utf8').catch(() => '')) !== script) {
    await writeFile(`${plugin}.tmp`, script, { mode: 0o755 });
    await rename(`${plugin}.tmp`, plugin);
  }
  const name = (await readdir(dirs.confDir)).filter((f) => f.endsWith('.conflist')).sort()[0];
  if (!name) return undefined;
  const path = join(dirs.confDir, name);
  const chained = chainedConflist(await readFile(path, 'utf8'));
  if (chained) {
    await writeFile(`${path}.istio-tmp`, chained);
    await rename(`${path}.istio-tmp`, path);
  }
  return path;
}

/**
 * What install-cni's Cleanup does when the agent goes for good (cni/pkg/install/install.go): `istio-cni`
 * taken out of the node's conflist chain (written to a temporary file and renamed) and the plugin
 * removed from the CNI bin folder. From then on a pod starts with the primary CNI alone.
 */
export async function uninstallCniPlugin(dirs: { binDir: string; confDir: string }): Promise<void> {
  for (const name of (await readdir(dirs.confDir)).filter((f) => f.endsWith('.conflist'))) {
    const path = join(dirs.confDir, name);
    const unchained = unchainedConflist(await readFile(path, 'utf8'));
    if (!unchained) continue;
    await writeFile(`${path}.istio-tmp`, unchained);
    await rename(`${path}.istio-tmp`, path);
  }
  await rm(join(dirs.binDir, CNI_PLUGIN_NAME), { force: true });
}
