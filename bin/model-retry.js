#!/usr/bin/env node
// The `model-retry` command. Runs the TypeScript sources through tsx, so it works right after `npm ci`.
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  console.error(
    `model-retry needs Node.js >= 22 (this is ${process.version}). ` +
      'Run it through `npm start` / `npm test`, or `source scripts/toolchain.sh` first, which install Node 24.',
  );
  process.exit(2);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../cli/main.ts');
// Exit as soon as the command has ended: the Temporal client's gRPC retry timers can outlive an aborted call
// (a detached `call`) and would otherwise keep the process up, or fail on the closed connection. But first let
// stdout and stderr drain: on a pipe they are written asynchronously, and `process.exit` drops what is still
// queued (an answer or `--json` longer than the pipe's 64 KB buffer came out cut, with exit 0).
const code = await main(process.argv.slice(2));
const drained = (stream) => new Promise((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
