import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { ModelRetryPlugin, modelRetryWebpackConfigHook } from '../../../plugin/index.js';
import { quietBundleLogger } from '../../harness/quiet.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/concat-workflows.ts', import.meta.url));
const AI_SDK_FIXTURE = fileURLToPath(new URL('./fixtures/ai-sdk-workflows.ts', import.meta.url));

/** The ids of the modules webpack left in the bundle (one per file, or one per concatenation). */
function moduleIds(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1] as string);
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
    expect(ours).toEqual(['./workflows/index.ts']);
    expect(moduleIds(code).filter((id) => id.includes('/@opentelemetry/api/'))).toEqual([]);
  });

  it("leaves the user's own modules alone, so their workflow functions keep their names", () => {
    expect(moduleIds(code)).toContain('./test/unit/plugin/fixtures/concat-workflows.ts');
    // `executeChild(show)` starts the workflow type `show.name`: renamed, it would start one that does not exist.
    expect(code).toMatch(/async function show\(/);
    expect(code).not.toMatch(/function concat_workflows_show\(/);
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
    // Each of these was a module of its own, instantiated at every run's start (issue 22: ~30 of them).
    expect(ids.filter((id) => /\/node_modules\/(zod|@ai-sdk|eventsource-parser)\//.test(id))).toEqual([]);
  });

  it("leaves the user's workflows file alone", () => {
    expect(moduleIds(code)).toContain('./test/unit/plugin/fixtures/ai-sdk-workflows.ts');
    expect(code).toMatch(/async function textWorkflow\(/);
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

  it.each([
    ['turned concatenation off', { concatenateModules: false }],
    ['kept only used exports', { usedExports: true }],
  ])('leaves the bundle as the user made it when they %s', (_name, optimization) => {
    const mine = { ...base, optimization };
    expect(modelRetryWebpackConfigHook(() => mine)(base)).toBe(mine);
  });
});
