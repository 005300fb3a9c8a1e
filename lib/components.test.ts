import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { componentAt, nameComponent } from './components.ts';

test('a component names its folder or its file; the most specific declaration wins', () => {
  const root = '/nowhere/project';
  nameComponent(pathToFileURL(join(root, 'svc', 'index.ts')).href, 'service');
  nameComponent(pathToFileURL(join(root, 'svc', 'worker.ts')).href, 'worker', 'file');
  assert.equal(componentAt(join(root, 'svc', 'handler.ts')), 'service');
  assert.equal(componentAt(join(root, 'svc', 'deep', 'x.ts')), 'service');
  assert.equal(componentAt(join(root, 'svc', 'worker.ts')), 'worker');
  assert.equal(
    componentAt(join(root, 'svc-other', 'x.ts')),
    undefined,
    'a sibling with the same prefix is not inside',
  );
  assert.equal(componentAt(join(root, 'elsewhere.ts')), undefined);
});
