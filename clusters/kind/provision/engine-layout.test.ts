import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDaemonConfig, engineLayout, WRAPPER_RUNTIME } from './engine-layout.ts';

test("our daemon's config names only its own paths and socket, never the default ones", () => {
  const layout = engineLayout('/var/lib/ztunnel-harness/engine', '/run');
  const config = buildDaemonConfig(layout, false);
  assert.deepEqual(config['hosts'], ['unix:///run/ztunnel-harness-docker.sock']);
  assert.equal(config['data-root'], '/var/lib/ztunnel-harness/engine/data');
  assert.equal(config['exec-root'], '/run/ztunnel-harness-docker');
  assert.equal(config['pidfile'], '/run/ztunnel-harness-docker.pid');
  assert.ok(!JSON.stringify(config).includes('/var/run/docker.sock'));
  assert.equal(config['group'], 'root', "the socket is root's, not the docker group's");
  assert.equal(config['default-runtime'], undefined, 'no wrapper where no capability is missing');
});

test('the runc wrapper is the default runtime only when asked for', () => {
  const layout = engineLayout();
  const config = buildDaemonConfig(layout, true);
  assert.equal(config['default-runtime'], WRAPPER_RUNTIME);
  assert.deepEqual(config['runtimes'], {
    [WRAPPER_RUNTIME]: { path: '/var/lib/ztunnel-harness/engine/runc-harness' },
  });
});
