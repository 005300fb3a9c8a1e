// The backend contract against the kind backend, without Docker: fake kind and docker executables,
// the API server double, and the controller double playing the cluster's controllers and kubelets.
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { KIND_PROVIDER } from '../provider.ts';
import { describeBackendContract } from '../../test/backend-contract.ts';
import { createKindBackend } from '../kind-backend.ts';
import { createKindTools } from '../kind-tools.ts';
import { startApiServerDouble } from './api-server-double.ts';
import { startControllerDouble } from './controller-double.ts';
import { createFakeKindAndDocker, kindKubeconfig } from './fake-kind-docker.ts';
import { fakeProvision } from './fake-provision.ts';

const NAME = 'contract';
let port = 18300;

describeBackendContract('kind', {
  async create(t) {
    const api = await startApiServerDouble();
    const controllers = startControllerDouble(api);
    const fakes = await createFakeKindAndDocker(kindKubeconfig(NAME, api.url));
    const tools = createKindTools({
      buildContext: PROJECT_ROOT,
      env: { PATH: fakes.path, FAKE_DIR: fakes.dir },
    });
    const backend = createKindBackend({
      name: NAME,
      projectRoot: PROJECT_ROOT,
      tools,
      provision: fakeProvision({ PATH: fakes.path, FAKE_DIR: fakes.dir }),
      ingressHostPort: port++,
    });
    // The backend first (its close talks to the API server), then the cluster's doubles.
    t.after(async () => {
      await backend.close();
      controllers.stop();
      await api.close();
    });
    return backend;
  },
  seesSignals: KIND_PROVIDER.capabilities.has('containerSignals'),
  // Checked against the Kubernetes model types before anything is sent: a misspelt field.
  unrunnable: (deployment) => {
    const object = structuredClone(deployment) as typeof deployment & {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    const container = object.spec.template.spec.containers[0];
    if (container) container['livenessProb'] = { httpGet: { path: '/get', port: 8080 } };
    return { object, message: /livenessProb is not a field/ };
  },
});
