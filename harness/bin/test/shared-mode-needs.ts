// What the tests that run istio/ztunnel's binary as the DaemonSet (--ztunnel-impl istio-shared)
// need of this machine, as one skip reason: the binary and its test root, Go (the ZDS relay is built
// from our source) and iptables (istio-cni's in-pod rules; preflight refuses istio-shared without).
import { inpodCaptureUnavailable } from '../../../mesh/node-agent/inpod-capture.ts';
import type { RealZtunnel } from '../../../clusters/local/upstream-ztunnel.ts';
import { findOnPath } from '../../../lib/install/index.ts';
import { realZtunnelHere } from '../../campaigns/conformance/real-target.ts';

/** The binary, or why the shared-mode tests skip here. */
export async function sharedModeHere(): Promise<{ real: RealZtunnel; skip: false } | { skip: string }> {
  const real = await realZtunnelHere(process.env);
  if (typeof real === 'string') return { skip: real };
  if (!(await findOnPath('go', process.env)))
    return { skip: 'needs go on PATH (to build zds-relay, the ZDS helper)' };
  const noCapture = await inpodCaptureUnavailable();
  return noCapture ? { skip: noCapture } : { real, skip: false };
}
