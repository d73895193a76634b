import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { encodingFailureConverterPath } from '../../payloads/data-converter.js';
import { quietBundleLogger } from './quiet.js';

/** The AI SDK agent workflows (`test/harness/bundle/ai-sdk-agent.ts`), shared by the tests and the comparison. */
export const AI_SDK_WORKFLOWS = fileURLToPath(new URL('./bundle/ai-sdk-agent.ts', import.meta.url));

/** The agent's tool activity. */
export const weatherActivities = { lookupWeather: async (city: string) => `sunny, 21C in ${city}` };

/**
 * The agent workflows bundled as a user's worker bundles them with `ModelRetryPlugin` (its polyfills first). One
 * bundle serves both sides of the comparison: `@temporalio/ai-sdk` needs the same polyfills.
 */
export async function bundleAiSdkWorkflows(): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: AI_SDK_WORKFLOWS,
    plugins: [new ModelRetryPlugin()],
    failureConverterPath: encodingFailureConverterPath(),
    logger: quietBundleLogger,
  });
  return bundle.code;
}
