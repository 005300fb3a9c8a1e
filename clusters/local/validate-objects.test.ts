import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { buildHttpbin, buildMeshManifests } from '../manifests/index.ts';
import { validateClusterObject } from './validate-objects.ts';

const refused = (re: RegExp) => (err: unknown) =>
  isHarnessError(err, ErrorCode.BadInput) && re.test(err.message);

describe('local backend manifest subset', () => {
  it('accepts every manifest the harness ships', () => {
    for (const o of buildMeshManifests({
      ztunnel: { graceS: 30 },
      httpbin: { replicas: 3, mesh: 'ambient', preStopSleepS: 5 },
    }))
      validateClusterObject(o);
  });

  it('refuses what it does not implement, naming the field path', () => {
    const [deployment] = buildHttpbin({ replicas: 1, mesh: 'off' });
    const withAffinity = structuredClone(deployment);
    if (withAffinity.spec?.template.spec) withAffinity.spec.template.spec.affinity = {};
    assert.throws(
      () => {
        validateClusterObject(withAffinity);
      },
      refused(/^Deployment\/default\/httpbin: spec\.template\.spec\.affinity is not implemented/),
    );
    const unknownImage = structuredClone(deployment);
    const c = unknownImage.spec?.template.spec?.containers[0];
    if (c) c.image = 'docker.io/mccutchen/go-httpbin:v2.15.0';
    assert.throws(
      () => {
        validateClusterObject(unknownImage);
      },
      refused(
        /containers\[0\]\.image names an image with no local entrypoint \("docker\.io\/mccutchen\/go-httpbin:v2\.15\.0"\)/,
      ),
    );
    const secretEnv = structuredClone(deployment);
    secretEnv.spec?.template.spec?.containers[0]?.env?.push({
      name: 'X',
      valueFrom: { secretKeyRef: { name: 's', key: 'k' } },
    });
    assert.throws(
      () => {
        validateClusterObject(secretEnv);
      },
      refused(/env\[2\]\.valueFrom is not implemented/),
    );
  });
});
