import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { ModelRetryPlugin, modelRetryWebpackConfigHook } from '../../../plugin/index.js';
import { usesAiSdk } from '../../../plugin/service-workflows.js';
import { quietBundleLogger } from '../../harness/quiet.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/concat-workflows.ts', import.meta.url));
const AI_SDK_FIXTURE = fileURLToPath(new URL('./fixtures/ai-sdk-workflows.ts', import.meta.url));

/** The ids of the modules webpack left in the bundle (one per file, or one per concatenation). */
function moduleIds(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1] as string);
}

/** The source of module `id` in a development bundle: from its header to the next module's. */
function moduleSource(code: string, id: string): string {
  const start = code.indexOf(`/***/ "${id}"`);
  expect(start, id).toBeGreaterThanOrEqual(0);
  const end = code.indexOf('\n/***/ "', start + 1);
  return code.slice(start, end < 0 ? undefined : end);
}

describe("the workflow bundle as ModelRetryPlugin builds it (model-retry's modules concatenated)", () => {
  let code: string;
  beforeAll(async () => {
    const plugin = new ModelRetryPlugin({ checkSearchAttributes: false });
    ({ code } = await bundleWorkflowCode({
      workflowsPath: FIXTURE,
      logger: quietBundleLogger,
      plugins: [plugin],
    }));
  }, 180_000);

  it("holds model-retry's workflows, policy and common code as one module, instantiated once per run", () => {
    const ours = moduleIds(code).filter((id) => /^\.\/(workflows|policy|common)\//.test(id));
    // The bundle's workflows module (yours and the workflows model-retry starts by itself), then all the rest.
    expect(ours).toEqual(['./workflows/bundle/entry.ts', './workflows/index.ts']);
    expect(moduleIds(code).filter((id) => id.includes('/@opentelemetry/api/'))).toEqual([]);
  });

  it("leaves the user's own modules alone, so their workflow functions keep their names", () => {
    expect(moduleIds(code)).toContain('./test/unit/plugin/fixtures/concat-workflows.ts');
    // `executeChild(show)` starts the workflow type `show.name`: renamed, it would start one that does not exist.
    expect(code).toMatch(/async function show\(/);
    expect(code).not.toMatch(/function concat_workflows_show\(/);
  });

  it("compiles model-retry's TypeScript to ES2022, as its dist JavaScript is, and the user's as Temporal does", () => {
    const ours = moduleSource(code, './workflows/index.ts');
    // Object spread and optional chaining stay as written in ours (no swc helper, no `void 0` chain) ...
    expect(ours).toMatch(/\{\s*\.\.\.[\w.]+/);
    expect(ours).toMatch(/\w\?\.\w/);
    expect(ours).not.toMatch(/_object_spread/);
    // ... while the user's file keeps Temporal's ES2017 (its spread becomes a helper call).
    expect(moduleSource(code, './test/unit/plugin/fixtures/concat-workflows.ts')).toMatch(/_object_spread/);
  });

  it("keeps the names of model-retry's exported workflows, which a user's `executeChild` may be given", () => {
    for (const name of ['modelCallWorkflow', 'agentTurnWorkflow', 'modelRetryHealthWorkflow']) {
      expect(code, name).toMatch(new RegExp(`async function ${name}\\(`));
    }
  });
});

describe('a workflow bundle that uses the AI SDK, as ModelRetryPlugin builds it', () => {
  let code: string;
  beforeAll(async () => {
    const plugin = new ModelRetryPlugin({ checkSearchAttributes: false });
    ({ code } = await bundleWorkflowCode({
      workflowsPath: AI_SDK_FIXTURE,
      logger: quietBundleLogger,
      plugins: [plugin],
    }));
  }, 180_000);

  it('holds the AI SDK and the zod modules it imports as one module, instantiated once per run', () => {
    const ids = moduleIds(code);
    expect(ids).toContain('./node_modules/ai/dist/index.js');
    // Each of these was a module of its own, instantiated at every run's start (~30 of them).
    expect(ids.filter((id) => /\/node_modules\/(zod|@ai-sdk|eventsource-parser)\//.test(id))).toEqual([]);
  });

  it("leaves the user's workflows file alone", () => {
    expect(moduleIds(code)).toContain('./test/unit/plugin/fixtures/ai-sdk-workflows.ts');
    expect(code).toMatch(/async function textWorkflow\(/);
  });

  it('holds the workflows model-retry starts on the task queue by itself, which the user never names', () => {
    // Fleet health's and a tenant's ledger: without them the first would never run and the second never answer.
    // Taken from `model-retry/ai-sdk`, as the user's file is: model-retry's modules stay concatenated into it.
    expect(usesAiSdk(AI_SDK_FIXTURE)).toBe(true);
    expect(usesAiSdk(FIXTURE)).toBe(false);
    const ours = moduleIds(code).filter((id) => /^\.\/(workflows|policy|common)\//.test(id));
    expect(ours).toEqual([
      './workflows/ai-sdk/index.ts',
      './workflows/ai-sdk/polyfills.ts',
      './workflows/bundle/entry.ts',
    ]);
    for (const name of ['modelRetryHealthWorkflow', 'modelRetryTenantLedgerWorkflow']) {
      expect(code, name).toMatch(new RegExp(`async function ${name}\\(`));
    }
  });
});

describe("modelRetryWebpackConfigHook and the user's own webpack settings", () => {
  const base = { mode: 'development' as const, plugins: [] };

  it('concatenates when the user said nothing of it, after their own hook', () => {
    const hook = modelRetryWebpackConfigHook((c) => ({ ...c, devtool: false }));
    const out = hook(base);
    expect(out.devtool).toBe(false);
    expect(out.optimization).toMatchObject({ concatenateModules: true, usedExports: false });
  });

  const swcRule = (options: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    test: /\.ts$/,
    exclude: /node_modules/,
    ...more,
    use: { loader: '/x/swc-loader/index.js', options },
  });
  const folders = (dirs: unknown) => (dirs as string[]).map((dir) => dir.split(/[\\/]/).at(-2));

  it("compiles only model-retry's own files to ES2022, and leaves every other rule as it was", () => {
    const tsRule = swcRule({ jsc: { target: 'es2017', parser: {} } });
    const other = { test: /\.js$/, enforce: 'pre' as const, use: ['/x/source-map-loader.js'] };
    const out = modelRetryWebpackConfigHook()({ ...base, module: { rules: [other, tsRule] } });
    const [first, theirs, ours, more] = (out.module?.rules ?? []) as Record<string, unknown>[];
    expect(first).toBe(other);
    expect(more).toBeUndefined();
    // Temporal's rule stays in place (a hook after ours still finds it), no longer for our folders ...
    expect(theirs).toMatchObject({ test: tsRule.test, use: tsRule.use });
    const [node, ...excluded] = theirs?.exclude as unknown[];
    expect(node).toBe(tsRule.exclude);
    expect(folders(excluded)).toEqual(['workflows', 'policy', 'common']);
    // ... which the rule after it compiles to ES2022.
    expect(ours).toMatchObject({ test: tsRule.test, exclude: tsRule.exclude });
    expect(folders(ours?.include)).toEqual(['workflows', 'policy', 'common']);
    expect(ours?.use).toMatchObject({ options: { jsc: { target: 'es2022', parser: {} } } });
    expect(tsRule.use.options.jsc).toEqual({ target: 'es2017', parser: {} });
  });

  it("keeps a rule's own include: ours applies only within it", () => {
    const mine = /src/;
    const out = modelRetryWebpackConfigHook()({
      ...base,
      module: { rules: [swcRule({ jsc: { target: 'es2017' } }, { include: mine })] },
    });
    const [theirs, ours] = (out.module?.rules ?? []) as Record<string, unknown>[];
    expect(theirs?.include).toBe(mine);
    const { and } = ours?.include as { and: [unknown, unknown] };
    expect(and[0]).toBe(mine);
    expect(folders(and[1])).toEqual(['workflows', 'policy', 'common']);
  });

  it('leaves an swc rule that targets by browserslist (`env`) or has no target alone: swc refuses both at once', () => {
    for (const options of [{ env: { targets: 'node 20' }, jsc: {} }, { jsc: { parser: {} } }]) {
      const rule = swcRule(options);
      const out = modelRetryWebpackConfigHook()({ ...base, module: { rules: [rule] } });
      expect(out.module?.rules).toEqual([rule]);
    }
  });

  it.each([
    ['turned concatenation off', { concatenateModules: false }],
    ['kept only used exports', { usedExports: true }],
  ])('leaves the bundle as the user made it when they %s', (_name, optimization) => {
    const mine = { ...base, optimization };
    expect(modelRetryWebpackConfigHook(() => mine)(base)).toBe(mine);
  });
});
