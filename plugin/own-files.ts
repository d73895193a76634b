import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Path of a module of `workflows/` (`name` without extension, e.g. `ai-sdk/preload`): TypeScript in a checkout,
 * JavaScript once built. Workflow bundles and preloads are given paths, not imports, so each is looked up here.
 */
export function workflowsModulePath(name: string): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`../workflows/${name}.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`model-retry: cannot find workflows/${name}.ts or ${name}.js`);
}
