import type { V1Deployment } from '@kubernetes/client-node';
import { createLocalBackend } from '../local/index.ts';
import { LOCAL_PROVIDER } from '../local/provider.ts';
import { describeBackendContract } from './backend-contract.ts';

let block = 230;
describeBackendContract('local', {
  create: () => Promise.resolve(createLocalBackend({ nodeCount: 2, addressBlock: block++ })),
  seesSignals: LOCAL_PROVIDER.capabilities.has('containerSignals'),
  // The kubelet here runs readiness probes only: a liveness probe would silently not be run.
  unrunnable: (deployment) => {
    const object = structuredClone(deployment) as V1Deployment;
    const container = object.spec?.template.spec?.containers[0];
    if (container) container.livenessProbe = { httpGet: { path: '/get', port: 8080 } };
    return { object, message: /livenessProbe/ };
  },
});
