// A pod's network namespace for ZDS tests: held by a sleep that dies with the test process, its
// path (/proc/<pid>/ns/net) and nsfs inode (two ways to the same number: stat through the magic
// link, and the link's text "net:[ino]"). With `ip`, one interface up with that address, as the
// primary CNI plugin leaves a pod (a veth pair inside the namespace, both ends up, so the kernel
// calls it running).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readlinkSync, statSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { execa } from 'execa';

export async function podNamespace(t: TestContext, ip?: string): Promise<{ path: string; ino: number }> {
  const holder: ChildProcess = spawn('setpriv', ['--pdeathsig', 'KILL', 'unshare', '--net', 'sleep', '600'], {
    stdio: 'ignore',
  });
  t.after(async () => {
    if (holder.exitCode === null && holder.signalCode === null) {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
  });
  const path = `/proc/${String(holder.pid)}/ns/net`;
  // setpriv and unshare exec into sleep in the same process; wait until it has its own namespace.
  const self = readlinkSync('/proc/self/ns/net');
  const until = Date.now() + 5_000;
  while (readlinkSync(path) === self) {
    if (Date.now() > until) throw new Error('the namespace holder did not unshare');
    await new Promise((r) => setTimeout(r, 10));
  }
  const ino = statSync(path).ino;
  assert.equal(readlinkSync(path), `net:[${String(ino)}]`);
  if (ip) {
    const script = `ip link add eth0 type veth peer name peer0 && ip addr add ${ip}/24 dev eth0 && ip link set peer0 up && ip link set eth0 up`;
    await execa('nsenter', [`--net=${path}`, 'sh', '-c', script]);
  }
  return { path, ino };
}
