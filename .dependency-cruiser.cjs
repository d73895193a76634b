/**
 * The rooms of docs/house (shared/design/house.md), enforced on the import graph (`npm run lint`):
 * no circle, and no arrow that runs back up. Type-only imports count too: a type is still a dependency.
 */
const rooms = 'policy|common|workflows|activities|payloads|worker|plugin|client|cli|loopback';
/** The tiers of tests: they may import the lab (test/harness) and the product, never each other's files. */
const tiers = 'unit|integration|scenario|chaos|cluster|browser|replay';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports: split the shared part out.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'policy-is-pure',
      severity: 'error',
      comment: 'policy/ imports nothing of the project outside itself.',
      from: { path: '^policy/' },
      to: { path: `^(${rooms})/`, pathNot: '^policy/' },
    },
    {
      name: 'common-takes-policy-only',
      severity: 'error',
      comment: 'common/ is plain data that crosses Temporal: it imports policy/ only.',
      from: { path: '^common/' },
      to: { path: `^(${rooms})/`, pathNot: '^(policy|common)/' },
    },
    {
      name: 'workflows-take-policy-and-common-only',
      severity: 'error',
      comment: 'workflows/ runs in the sandbox: among our folders it imports only policy/ and common/.',
      from: { path: '^workflows/' },
      to: { path: `^(${rooms})/`, pathNot: '^(policy|common|workflows)/' },
    },
    {
      name: 'activities-never-import-workflows',
      severity: 'error',
      comment: 'Data flows from workflows to activities through common/, never by importing workflows/.',
      from: { path: '^activities/' },
      to: { path: '^(workflows|worker|client|cli|loopback|plugin)/' },
    },
    {
      name: 'production-never-imports-loopback',
      severity: 'error',
      comment: 'The loopback provider is for the demo, tests and benchmarks: wire it in cli/.',
      from: { path: '^(worker|activities|workflows|payloads|plugin|client|common|policy)/' },
      to: { path: '^loopback/' },
    },
    {
      name: 'client-never-imports-worker',
      severity: 'error',
      comment: 'A host needs no worker: shared pieces live in payloads/, common/ or plugin/.',
      from: { path: '^client/' },
      to: { path: '^(worker|activities|cli)/' },
    },
    {
      name: 'hosts-name-workflow-functions-only',
      severity: 'error',
      comment:
        "client/ and cli/ import workflows/ only to name a workflow function; a call's and a turn's input checks and the query and update definitions live in common/.",
      from: { path: '^(client|cli)/' },
      to: {
        path: '^workflows/',
        pathNot: [
          '^workflows/call/model-call-workflow\\.ts$',
          '^workflows/turn/agent-turn\\.ts$',
          '^workflows/rerun/rerun-workflow\\.ts$',
        ],
      },
    },
    {
      name: 'payloads-stand-alone',
      severity: 'error',
      comment: 'The data converter is used by workers and clients alike: it imports only common/.',
      from: { path: '^payloads/' },
      to: { path: `^(${rooms})/`, pathNot: '^(common|payloads)/' },
    },
    {
      name: 'worker-is-not-a-library-for-cli-only',
      severity: 'error',
      comment: 'worker/ is the process: it never imports the command line or the client.',
      from: { path: '^worker/' },
      to: { path: '^(cli|client)/' },
    },
    {
      name: 'plugin-takes-activities-payloads-common',
      severity: 'error',
      comment:
        'plugin/ is loaded by clients too: it imports activities/, payloads/, common/ and policy/, never the worker process, the client or the CLI.',
      from: { path: '^plugin/' },
      to: { path: '^(workflows|worker|client|cli|loopback)/' },
    },
    {
      name: 'product-never-imports-lab-bench-scripts',
      severity: 'error',
      comment: 'The product knows nothing of its tests, benchmarks or tooling.',
      from: { path: `^(${rooms})/` },
      to: { path: '^(bench|test|scripts)/' },
    },
    {
      name: 'scripts-are-the-toolchain-only',
      severity: 'error',
      comment: 'scripts/ holds the toolchain and CI helpers: it imports nothing from bench/ or test/.',
      from: { path: '^scripts/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'lab-never-imports-bench-or-tiers',
      severity: 'error',
      comment:
        'test/harness is the lab shared by tests, benchmarks and profilers: it imports the product only, never bench/ or a test tier.',
      from: { path: '^test/harness/' },
      to: { path: `^(bench|scripts)/|^test/(${tiers})/` },
    },
    {
      name: 'bench-takes-lab-and-product',
      severity: 'error',
      comment: 'bench/ may import the lab (test/harness) and the product, never a test tier or scripts/.',
      from: { path: '^bench/' },
      to: { path: `^scripts/|^test/(${tiers})/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|bench/results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
