import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { it } from 'node:test';
import { isHarnessError, ErrorCode } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';
import { componentOf, installCrashGuard } from './crash-guard.ts';
// The components name themselves where their code is, when loaded (as a run loads them).
import '../../mesh/pki/ca-server.ts';
import '../../mesh/control-plane/control-plane.ts';
import '../../mesh/discovery/discovery-server.ts';
import '../../clusters/local/local-backend.ts';

const errorAt = (...files: string[]): Error => {
  const err = new TypeError('boom');
  err.stack = [
    'TypeError: boom',
    ...files.map((f, i) => `    at fn${String(i)} (${f.startsWith('/') ? f : join(PROJECT_ROOT, f)}:10:5)`),
  ].join('\n');
  return err;
};

it("names the component of the error's innermost frame in our folders", () => {
  assert.equal(componentOf(errorAt('node_modules/jose/dist/x.js', 'mesh/pki/ca-server.ts')), 'CA (istiod)');
  assert.equal(
    componentOf(errorAt('/usr/lib/node/x.js', 'mesh/control-plane/debouncer.ts')),
    'control plane (istiod)',
  );
  assert.equal(
    componentOf(errorAt('clusters/local/kubelet.ts', 'clusters/local/local-backend.ts')),
    'kubelet',
  );
  assert.equal(componentOf(errorAt('clusters/local/cluster-state.ts')), 'local API server');
  assert.equal(componentOf(errorAt('clusters/local/controllers.ts')), 'controller manager');
  assert.equal(componentOf(errorAt('mesh/node-agent/node-agent-server.ts')), 'CNI node agent');
  // No component named itself there: the floor.
  assert.equal(componentOf(errorAt('mesh/hbone/pool.ts')), 'mesh component');
  assert.equal(componentOf(errorAt('harness/bin/test/fixtures/crash-after.ts')), 'harness process');
  assert.equal(componentOf('a string thrown'), 'harness process');
});

it('an uncaught exception aborts the controller with the component and the error, once', () => {
  const controller = new AbortController();
  const written: string[] = [];
  // An emitter in place of `process`: the test runner reports real uncaught errors as failures.
  const source = new EventEmitter();
  const uninstall = installCrashGuard(controller, (t) => written.push(t), source);
  source.emit('uncaughtException', errorAt('mesh/discovery/discovery-server.ts'));
  source.emit('unhandledRejection', new Error('second'));
  uninstall();
  assert.equal(source.listenerCount('uncaughtException') + source.listenerCount('unhandledRejection'), 0);
  assert.ok(isHarnessError(controller.signal.reason, ErrorCode.ComponentFailed));
  assert.equal(
    (controller.signal.reason as Error).message,
    'uncaught error in the discovery server (istiod xDS): TypeError: boom',
  );
  assert.equal(written.filter((t) => /stopping the run/.test(t)).length, 1, 'the first cause stands');
});
