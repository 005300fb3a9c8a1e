import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { checkIngressPortFree } from './ingress-port.ts';

test('a taken ingress port is bad input (exit 2) naming the port and --kind-ingress-port', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  t.after(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  const { port } = server.address() as { port: number };
  await assert.rejects(
    checkIngressPortFree(port),
    (err: unknown) =>
      isHarnessError(err, ErrorCode.BadInput) &&
      err.exitCode === 2 &&
      err.message.startsWith(`127.0.0.1:${String(port)}, where kind publishes`) &&
      err.message.includes('--kind-ingress-port'),
  );
});

test('a free port passes and is left free', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) =>
    probe.close(() => {
      resolve();
    }),
  );
  await checkIngressPortFree(port);
  await checkIngressPortFree(port);
});
