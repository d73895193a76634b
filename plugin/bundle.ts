import { fileURLToPath } from 'node:url';
import { sep } from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;
type WebpackConfig = Parameters<WebpackConfigHook>[0];

/** What webpack hands the plugin below (only the parts it touches; typed loosely to import nothing of webpack). */
interface Compiler {
  hooks: { compilation: { tap(name: string, fn: (compilation: Compilation) => void): void } };
}
interface Compilation {
  hooks: { finishModules: { tap(name: string, fn: (modules: Iterable<BuiltModule>) => void): void } };
}
interface BuiltModule {
  resource?: string;
  buildInfo?: { moduleConcatenationBailout?: string };
}

const NAME = 'model-retry-concatenation';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The folders of ours that go into a workflow bundle, and the one ES-module library they pull in. */
const OURS = ['workflows', 'policy', 'common'].map((dir) => `${ROOT}${dir}${sep}`);
const OTEL_API = `${sep}node_modules${sep}@opentelemetry${sep}api${sep}`;
/**
 * The AI SDK as `model-retry/ai-sdk` users bundle it: `ai`, its `@ai-sdk/*` packages, `zod` and the small ES
 * modules `ai` imports (none of them looks a function up by its name: zod names its classes itself, the AI SDK's
 * errors set their `name`).
 */
const AI_SDK =
  /[\\/]node_modules[\\/](?:ai|zod|eventsource-parser|@ai-sdk[\\/][^\\/]+|@workflow[\\/]serde|@vercel[\\/]oidc)[\\/]/;

/**
 * Whether webpack may concatenate this file: model-retry's own sandbox code, `@opentelemetry/api`, and the AI SDK
 * with zod.
 */
export function concatenatesModule(resource: string): boolean {
  return OURS.some((dir) => resource.startsWith(dir)) || resource.includes(OTEL_API) || AI_SDK.test(resource);
}

/**
 * model-retry's `webpackConfigHook` for a workflow bundle (`ModelRetryPlugin` and `createModelRetryWorker` apply
 * it; pass it to `bundleWorkflowCode` when you build a bundle ahead of time without the plugin). Temporal
 * instantiates every module of the bundle afresh for each workflow run and each replay (module state is per
 * run), so each module costs a factory call and an export getter per export. Webpack's module concatenation
 * turns our ~70 files and `@opentelemetry/api`'s 25 into one module, and the AI SDK's (`ai`, `@ai-sdk/*`, the
 * `zod` modules they import: ~30) into a few, for workflows that use `generateText` on a `durableModel`.
 *
 * Only those: every other module (your workflows, Temporal's) is left as webpack makes it, because
 * concatenation renames a top-level function whose name another concatenated file also uses, and
 * `executeChild(fn)` takes the workflow type from `fn.name`. Exports are all kept (`usedExports: false`):
 * Temporal looks workflows up by their exported names. Our own TypeScript files compile to ES2022 rather than
 * Temporal's ES2017 (see `ownTarget`). Chains after `next`.
 */
export function modelRetryWebpackConfigHook(next?: WebpackConfigHook): WebpackConfigHook {
  return (config) => {
    const given = next ? next(config) : config;
    // A user who turned concatenation off (or kept only used exports) chose so: leave their bundle as they made it.
    if (given.optimization?.concatenateModules === false || given.optimization?.usedExports !== undefined)
      return given;
    return {
      ...given,
      module: given.module ? { ...given.module, rules: ownTarget(given.module.rules) } : given.module,
      optimization: {
        ...given.optimization,
        concatenateModules: true,
        providedExports: true,
        usedExports: false,
      },
      plugins: [...(given.plugins ?? []), onlyOurModules] as WebpackConfig['plugins'],
    };
  };
}

/** The JavaScript version model-retry's TypeScript sources compile to, as `tsc` compiles `dist` (ES2023). */
const OWN_TARGET = 'es2022';

type Rules = NonNullable<NonNullable<WebpackConfig['module']>['rules']>;

/**
 * Temporal's bundler compiles every TypeScript file with swc to ES2017: object spread, optional chaining, `??`
 * and class fields become helper calls and longer code. model-retry's own sources (run from TypeScript: tests, the
 * benchmarks, a checkout) compile to `OWN_TARGET` instead, as its `dist` JavaScript already is; a user's files keep
 * Temporal's setting. The swc rule (found by its loader, with a `jsc.target` and no `env`, which swc refuses beside
 * a target) stays where it is, with our folders added to what it excludes; a copy for our folders (within what the
 * rule included) follows it. Every other rule is left as it is.
 */
function ownTarget(rules: Rules | undefined): Rules | undefined {
  return rules?.flatMap((rule): unknown[] => {
    const use = typeof rule === 'object' && rule ? (rule as { use?: unknown }).use : undefined;
    const loader =
      use && typeof use === 'object' ? (use as { loader?: unknown; options?: unknown }) : undefined;
    const options = loader?.options as { jsc?: { target?: unknown }; env?: unknown } | undefined;
    if (
      typeof loader?.loader !== 'string' ||
      !loader.loader.includes('swc-loader') ||
      typeof options?.jsc?.target !== 'string' ||
      options.env !== undefined
    )
      return [rule];
    const { include, exclude } = rule as { include?: unknown; exclude?: unknown };
    const theirs = { ...(rule as object), exclude: exclude === undefined ? OURS : [exclude, ...OURS] };
    const ours = {
      ...(rule as object),
      include: include === undefined ? OURS : { and: [include, OURS] },
      use: { ...loader, options: { ...options, jsc: { ...options.jsc, target: OWN_TARGET } } },
    };
    return [theirs, ours];
  }) as Rules | undefined;
}

/** Marks every module but ours as not to be concatenated (webpack's own per-module bailout, with the reason). */
const onlyOurModules = {
  apply(compiler: Compiler): void {
    compiler.hooks.compilation.tap(NAME, (compilation) => {
      compilation.hooks.finishModules.tap(NAME, (modules) => {
        for (const module of modules) {
          if (module.buildInfo && !concatenatesModule(module.resource ?? ''))
            module.buildInfo.moduleConcatenationBailout = 'model-retry concatenates only its own modules';
        }
      });
    });
  },
};
