import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { promisify } from 'node:util';
import {
  HOST_PROBE_ADDRESS,
  inpodCaptureUnavailable,
  inpodRules,
  INPOD_PORTS,
} from '../../../mesh/node-agent/inpod-capture.ts';
import { createNetworkWorld, netnsUnavailable } from '../network-world.ts';
import { dial } from './dial.ts';

const skip = (await netnsUnavailable()) ?? (await inpodCaptureUnavailable());

test('the rules are istio-cni default.golden rules: inbound to 15006 except HBONE and probes, outbound to 15001', () => {
  const rules = inpodRules();
  assert.match(
    rules,
    /-A ISTIO_PRERT ! -d 127\.0\.0\.1\/32 -p tcp ! --dport 15008 -m mark ! --mark 0x539\/0xfff -j REDIRECT --to-ports 15006/,
  );
  assert.match(rules, /-A ISTIO_PRERT -s 169\.254\.7\.127 -p tcp -m tcp -j ACCEPT/);
  assert.match(
    rules,
    /-A ISTIO_OUTPUT ! -d 127\.0\.0\.1\/32 -p tcp -m mark ! --mark 0x539\/0xfff -j REDIRECT --to-ports 15001/,
  );
  // The probe ACCEPT comes before the REDIRECT (iptables takes the first match).
  assert.ok(rules.indexOf('-s 169.254.7.127') < rules.indexOf('--to-ports 15006'));
});

test(
  "a captured pod: the host's connection to the app's port reaches :15006, HBONE and the probe address do not",
  { skip },
  async (t) => {
    const world = await createNetworkWorld({ nodes: 1 });
    t.after(() => {
      world.close();
    });
    const pod = await world.addPod(1, 'captured', undefined, { capture: true });
    const plain = await world.addPod(1, 'plain');
    // One process inside each pod answering on the app port, 15006 and 15008 with which it is.
    const program = `const net=require('net');let n=0;for(const [port,name] of [[8000,'app'],[${String(INPOD_PORTS.inboundPlaintext)},'capture'],[${String(INPOD_PORTS.hbone)},'hbone']])net.createServer(c=>c.end(name)).listen(port,'0.0.0.0',()=>{if(++n===3)console.log('up')})`;
    for (const p of [pod, plain]) {
      const [file = '', ...args] = p.command([process.execPath, '-e', program]);
      const server = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      t.after(() => server.kill('SIGKILL'));
      await once(createInterface({ input: server.stdout }), 'line');
    }
    assert.equal(await dial(pod.ip, 8000), 'capture', 'plaintext to the pod goes to ztunnel inbound');
    assert.equal(
      await dial(pod.ip, 9999),
      'capture',
      'any port: the original destination is what ztunnel reads',
    );
    assert.equal(await dial(pod.ip, INPOD_PORTS.hbone), 'hbone', 'HBONE is not redirected');
    assert.equal(
      await dial(pod.ip, 8000, { localAddress: HOST_PROBE_ADDRESS }),
      'app',
      "the kubelet's probe address reaches the app itself",
    );
    assert.equal(await dial(plain.ip, 8000), 'app', 'a pod without capture is untouched');
    // The pod's own outbound is redirected to 15001 (nothing listens there: refused).
    const [file = '', ...args] = pod.command([
      process.execPath,
      '-e',
      `require('net').connect(8000,'${plain.ip}').on('data',d=>{process.stdout.write(d);process.exit(0)}).on('error',e=>{process.stdout.write(e.code);process.exit(0)})`,
    ]);
    const { stdout } = await promisify(execFile)(file, args, { timeout: 5000 });
    assert.equal(stdout, 'ECONNREFUSED', 'outbound goes to :15001, where nothing listens');
  },
);
