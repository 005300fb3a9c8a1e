import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from '../../../lib/index.ts';
import { fortioArgs } from '../../../harness/load/run-fortio.ts';
import { podArgvOf } from './fortio-pod-argv.ts';

const WHERE = { ingress: '127.0.0.1:18080', target: '10.96.7.9:80' };

/** The host's command line as run-fortio.ts makes it, so a change there shows here. */
function hostArgv(url: string): string[] {
  const spec = {
    targets: [url],
    qps: 50,
    connections: 4,
    durationS: 20,
    timeoutS: 10,
  };
  return [
    '/repo/.tools/fortio-v1.66.0/fortio',
    ...fortioArgs(spec, {
      accessLogPath: '/runs/r1/fortio/access.jsonl',
      jsonPath: '/runs/r1/fortio/fortio.json',
      logPath: '/runs/r1/fortio/fortio.log',
    }),
  ];
}

test("the pod's fortio writes its files in /out, copied back to the host paths, and calls the ClusterIP", () => {
  const { args, files } = podArgvOf(hostArgv('http://127.0.0.1:18080/status/418'), WHERE);
  assert.equal(args[0], 'load');
  assert.equal(args[args.indexOf('-access-log-file') + 1], '/out/access.jsonl');
  assert.equal(args[args.indexOf('-json') + 1], '/out/fortio.json');
  assert.equal(args.at(-1), 'http://10.96.7.9/status/418');
  assert.ok(!args.some((a) => a.includes('/runs/') || a.includes('127.0.0.1')), args.join(' '));
  assert.deepEqual(files, [
    { name: 'access.jsonl', hostPath: '/runs/r1/fortio/access.jsonl' },
    { name: 'fortio.json', hostPath: '/runs/r1/fortio/fortio.json' },
  ]);
  // Everything before the files as the host would have run it (the executable aside).
  const host = hostArgv('http://127.0.0.1:18080/status/418').slice(1);
  const k = host.indexOf('-access-log-file');
  assert.deepEqual(args.slice(0, k), host.slice(0, k));
});

test("a host address other than the ingress is refused; a pod's own address is kept (E3's connections to the pods)", () => {
  assert.throws(
    () => podArgvOf(hostArgv('http://127.0.0.1:9999/status/418'), WHERE),
    (err: unknown) => isHarnessError(err) && /--load-from host/.test(err.message),
  );
  const { args } = podArgvOf(hostArgv('http://10.244.2.4:8080/status/418'), WHERE);
  assert.equal(args.at(-1), 'http://10.244.2.4:8080/status/418');
});
