// Runs first in every npm script, on whatever `node` npm put on PATH. Plain JavaScript on purpose:
// it must run on an old Node (the system's, e.g. 20) to explain why the project cannot.
//
// The project needs Node 24: type stripping runs our .ts files, `net.Server#listen({ reusePort })`
// (SO_REUSEPORT, Node >= 22.12) carries the ztunnel upgrade handoff, and @kubernetes/client-node 2.x
// needs >= 22.19. The `node` devDependency ships a Node 24 binary through the npm registry and npm
// puts node_modules/.bin first on PATH inside scripts, so after `npm ci` every script gets it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);

if (major < REQUIRED_MAJOR) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const shipped = join(root, 'node_modules', 'node', 'bin', 'node');
  const hint = existsSync(shipped)
    ? `node_modules/node exists but npm did not run it: start the script with \`npm run <script>\` ` +
      `(not \`node ...\` directly), or put ${join(root, 'node_modules', '.bin')} first on PATH.`
    : 'The `node` devDependency that ships Node 24 is not installed: run `npm ci` in the project ' +
      'folder (it needs the npm registry), or install Node 24 LTS yourself.';
  process.stderr.write(
    `This project needs Node ${String(REQUIRED_MAJOR)} or newer, but this script runs on Node ` +
      `${process.versions.node} (${process.execPath}).\n${hint}\n`,
  );
  process.exit(2);
}
