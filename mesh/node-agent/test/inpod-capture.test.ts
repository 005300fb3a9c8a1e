// istio-cni's in-pod capture applied twice in the same real network namespace, as a restarted agent
// re-enrols the pods an earlier one captured: the second succeeds and nothing is doubled (before,
// `ip rule add` failed with "File exists", the pod was left out of the new ZDS snapshot, and
// ztunnel drained a running pod: docs/findings/2026-11-29-faults-since-the-seeds.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execa } from 'execa';
import { findOnPath } from '../../../lib/install/index.ts';
import { podNamespace } from '../../zds/test/pod-namespace.ts';
import { applyInpodCapture } from '../inpod-capture.ts';

async function unavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['iptables-restore', 'iptables', 'unshare', 'setpriv', 'nsenter', 'ip'])
    if (!(await findOnPath(tool, process.env))) return `needs ${tool} on PATH`;
  return undefined;
}
const skip = await unavailable();

test(
  'the capture applied again in a captured namespace succeeds and adds nothing twice',
  { skip },
  async (t) => {
    const ns = await podNamespace(t, '10.79.0.5');
    const inNs = (argv: string[]): string[] => ['nsenter', `--net=${ns.path}`, '--', ...argv];
    const out = async (argv: string[]): Promise<string> => {
      const [file = '', ...args] = inNs(argv);
      return (await execa(file, args)).stdout;
    };
    await applyInpodCapture(inNs);
    const first = {
      prerouting: await out(['iptables', '-t', 'nat', '-S', 'PREROUTING']),
      prert: await out(['iptables', '-t', 'nat', '-S', 'ISTIO_PRERT']),
      rules: await out(['ip', 'rule', 'show']),
      routes: await out(['ip', 'route', 'show', 'table', '100']),
    };
    await applyInpodCapture(inNs);
    assert.deepEqual(
      {
        prerouting: await out(['iptables', '-t', 'nat', '-S', 'PREROUTING']),
        prert: await out(['iptables', '-t', 'nat', '-S', 'ISTIO_PRERT']),
        rules: await out(['ip', 'rule', 'show']),
        routes: await out(['ip', 'route', 'show', 'table', '100']),
      },
      first,
    );
    assert.equal(first.prerouting.match(/-j ISTIO_PRERT/g)?.length, 1);
    assert.equal(first.rules.match(/fwmark 0x111\/0xfff lookup 100/g)?.length, 1);
  },
);
