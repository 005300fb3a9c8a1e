// pilot-agent's first certificate (issue 33, prediction 6): a CA that answers 5xx at start is asked
// again with backoff, as pilot-agent retries transient CA errors (istio/istio pkg/security/retry.go);
// a refusal (401) ends the process at once with the CA's answer. The real pilot-agent process
// against a real CA; no Envoy is installed on purpose (ENVOY_BINARY names a missing file), so
// "cannot start Envoy" is how the test sees that the certificate step was passed.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../../lib/paths.ts';
import { createCertificateAuthority, startCaServer } from '../../pki/index.ts';
import type { TokenCaller } from '../../pki/index.ts';

const MAIN = join(PROJECT_ROOT, 'mesh', 'pilot-agent', 'main.ts');
const GATEWAY: TokenCaller = {
  namespace: 'istio-system',
  serviceAccount: 'istio-ingressgateway',
  podName: 'istio-ingressgateway-abc',
  podUid: 'uid-gateway',
  nodeName: 'node-1',
};

/** A CA whose TokenReview answers in turn (a thrown error is the CA's 500), and pilot-agent run once against it. */
async function runAgainstCa(t: TestContext, answers: ('fail' | 'refuse' | 'ok')[]) {
  const ca = await createCertificateAuthority();
  let requests = 0;
  const server = await startCaServer({
    ca,
    authenticate: () => {
      const answer = answers[Math.min(requests++, answers.length - 1)];
      if (answer === 'fail') return Promise.reject(new Error('TokenReview: the API server is not reachable'));
      return Promise.resolve(answer === 'refuse' ? 'token not authenticated: invalid bearer token' : GATEWAY);
    },
    pods: () => [],
    host: '127.0.0.1',
  });
  t.after(() => server.close());
  const dir = await mkdtemp(join(tmpdir(), 'pa-cert-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'root-cert.pem'), ca.rootPem);
  await writeFile(join(dir, 'istio-token'), 'gateway-token');
  const result = await execa(process.execPath, [MAIN, 'proxy', 'router'], {
    env: {
      CA_ADDRESS: server.url,
      CA_ROOT_CA: join(dir, 'root-cert.pem'),
      AUTH_TOKEN: join(dir, 'istio-token'),
      INSTANCE_IP: '127.0.0.1',
      XDS_ADDRESS: '127.0.0.1:1',
      POD_NAMESPACE: GATEWAY.namespace,
      SERVICE_ACCOUNT: GATEWAY.serviceAccount,
      ENVOY_BINARY: join(dir, 'no-envoy-here'),
    },
    reject: false,
    timeout: 20_000,
  });
  return { result, requests: () => requests };
}

describe('pilot-agent certificate at start', () => {
  it('retries a CA answering 5xx with backoff, logging each failure, then goes on', async (t) => {
    const { result, requests } = await runAgainstCa(t, ['fail', 'fail', 'ok']);
    assert.equal(requests(), 3);
    const retries = result.stdout.split('\n').filter((l) => /ca request failed, retrying/.test(l));
    assert.equal(retries.length, 2, result.stdout);
    assert.match(retries[0] ?? '', /attempt=1 .*retry_in_ms=100 .*answered 500: CSR signing error/);
    assert.match(retries[1] ?? '', /attempt=2 .*retry_in_ms=200 /);
    // Past the certificate: the next step (Envoy) is what fails here.
    assert.match(result.stderr, /cannot start Envoy/);
  });

  it('fails at once on a refusal (401), naming the answer', async (t) => {
    const { result, requests } = await runAgainstCa(t, ['refuse']);
    assert.equal(result.exitCode, 1);
    assert.equal(requests(), 1, 'a refusal is not retried');
    assert.match(
      result.stderr,
      /pilot-agent: certificate for istio-system\/istio-ingressgateway from https:\/\/127\.0\.0\.1:\d+ failed \(not retried\): CA \S+ answered 401: request authenticate failure/,
    );
    assert.doesNotMatch(result.stderr, /cannot start Envoy/);
  });
});
