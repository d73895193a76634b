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
// (a detached `call`) and would otherwise keep the process up, or fail on the closed connection.
process.exit(await main(process.argv.slice(2)));
