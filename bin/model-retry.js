#!/usr/bin/env node
// The `model-retry` command. Installed from the package it runs the compiled JavaScript in dist/ (built by
// `npm run build`, which `npm pack` runs first); in a checkout of the repository it runs the TypeScript sources
// through tsx, so that an edit takes effect without a build and a stale dist/ is never run by mistake.
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  console.error(
    `model-retry needs Node.js >= 22 (this is ${process.version}). ` +
      'Run it through `npm start` / `npm test`, or `source scripts/toolchain.sh` first, which install Node 24.',
  );
  process.exit(2);
}

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const source = new URL('../cli/main.ts', import.meta.url);
// Node resolves the symlink npm puts in node_modules/.bin, so this is the file's real place. A checkout is a
// folder with the sources that is not inside a node_modules; an installed package, or an image that copies only
// dist/ and bin/, runs what was compiled.
const installed = fileURLToPath(import.meta.url)
  .split(sep)
  .includes('node_modules');
const checkout = !installed && existsSync(source);
let main;
if (checkout) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else if (existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else {
  console.error(
    'model-retry: dist/cli/main.js is missing: this copy of the package was not built (`npm run build`).',
  );
  process.exit(2);
}
// Exit as soon as the command has ended: the Temporal client's gRPC retry timers can outlive an aborted call
// (a detached `call`) and would otherwise keep the process up, or fail on the closed connection. But first let
// stdout and stderr drain: on a pipe they are written asynchronously, and `process.exit` drops what is still
// queued (an answer or `--json` longer than the pipe's 64 KB buffer came out cut, with exit 0).
const code = await main(process.argv.slice(2));
const drained = (stream) => new Promise((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
