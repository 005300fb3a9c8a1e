// fortio's files as it writes them in its pod, brought to the run folder while it runs: the harness
// tails `access.jsonl` for the load's live counts (harness/load/records-tail.ts), as it does a host
// fortio's. A kind node is a container of this host's engine whose /var is a Docker volume (kind's
// node containers mount one there), so a hostPath under /var on the node is a folder on this host:
// the volume's Source joined with the path below /var. Each poll appends what is new.
import { appendFile, open, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { execa } from 'execa';

/** Where a path under the node's /var is on this host, or undefined where it cannot be seen. */
export async function hostPathOfNodeFile(options: {
  node: string;
  path: string;
  dockerEnv: Record<string, string>;
}): Promise<string | undefined> {
  if (!options.path.startsWith('/var/')) return undefined;
  const inspect = await execa(
    'docker',
    [
      'inspect',
      '--format',
      '{{range .Mounts}}{{if eq .Destination "/var"}}{{.Source}}{{end}}{{end}}',
      options.node,
    ],
    { env: options.dockerEnv, extendEnv: true, reject: false },
  );
  const source = inspect.exitCode === 0 ? inspect.stdout.trim() : '';
  return source ? `${source}/${relative('/var', options.path)}` : undefined;
}

export interface FileMirror {
  /** Appends to the copy what the source has beyond what was copied; resolves when done. */
  poll(): Promise<void>;
}

/** Copies `from` to `to` as it grows (a file only ever appended to, as fortio's access log). */
export function createFileMirror(from: string, to: string): FileMirror {
  let copied = 0;
  let busy: Promise<void> | undefined;
  const step = async (): Promise<void> => {
    const size = await stat(from).then(
      (s) => s.size,
      () => 0, // not there yet
    );
    if (size <= copied) return;
    const file = await open(from, 'r');
    try {
      const chunk = Buffer.alloc(size - copied);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, copied);
      await appendFile(to, chunk.subarray(0, bytesRead));
      copied += bytesRead;
    } finally {
      await file.close();
    }
  };
  return {
    poll() {
      // One step at a time: polls that come while one runs wait for it (no byte copied twice).
      busy = (busy ?? Promise.resolve()).then(step, step);
      return busy;
    },
  };
}
