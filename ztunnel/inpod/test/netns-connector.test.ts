// App connections from inside a captured pod's namespace (kind's in-pod mode), on real namespaces
// with istio-cni's rules applied.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createNetworkWorld, netnsUnavailable } from '../../../clusters/netns/network-world.ts';
import { inpodCaptureUnavailable } from '../../../mesh/node-agent/inpod-capture.ts';
import { describeConnectError } from '../../proxy/connect-upstream.ts';
import { startNetnsConnector } from '../netns-connector.ts';

const skip = (await netnsUnavailable()) ?? (await inpodCaptureUnavailable());

/** Inside the pod: an app on 0.0.0.0:8080 that answers "app <what it read>" and ends. */
const APP = `require('node:net').createServer((c) => c.once('data', (d) => c.end('app ' + d))).listen(8080, '0.0.0.0', () => console.log('up'));`;

/** What a TCP connection from here gets: the bytes answered, or the error's code. */
function dialFromHost(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.once('connect', () => s.write('hi'));
    s.once('error', (e: NodeJS.ErrnoException) => {
      resolve(e.code ?? 'error');
    });
    s.once('close', () => {
      resolve(got);
    });
  });
}

test(
  "a captured pod's app is reached from inside its namespace; from outside, the rules send the same connection to :15006",
  { skip },
  async (t) => {
    const world = await createNetworkWorld({ nodes: 1 });
    t.after(() => {
      world.close();
    });
    const pod = await world.addPod(1, 'captured', undefined, { capture: true });
    const [file = '', ...args] = pod.command([process.execPath, '-e', APP]);
    const app = spawn(file, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => app.kill('SIGKILL'));
    await once(app.stdout, 'data');

    // From the host, the connection is redirected to ztunnel's :15006, where nothing listens here.
    assert.equal(await dialFromHost(pod.ip, 8080), 'ECONNREFUSED');

    const connector = startNetnsConnector(pod.path);
    t.after(() => {
      connector.close();
    });
    const socket = await connector.connect({ host: pod.ip, port: 8080 });
    socket.write('hello');
    const [answer] = (await once(socket, 'data')) as [Buffer];
    assert.equal(answer.toString(), 'app hello');
    socket.destroy();

    // A port nothing listens on: the errno comes back, in upstream's words.
    const refused = await connector.connect({ host: pod.ip, port: 8081 }).catch((e: unknown) => e);
    assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.equal(describeConnectError(refused), 'connection failed: Connection refused (os error 111)');

    connector.close();
    await assert.rejects(connector.connect({ host: pod.ip, port: 8080 }), /the pod is gone/);
  },
);
