/**
 * A recorded request as a new call's input: the conversation, tools, settings and options exactly as the first
 * attempt sent them (wire messages convert to themselves), sent to one candidate model. Provider-bound reasoning
 * of another provider is left out by the attempt itself (`forProvider`), as for any chain across families.
 */
import type { Budget, RetryPlan } from '../policy/index.js';
import type { ModelSettings } from './attempt.js';
import type { ModelCallInput } from './call.js';
import { settingsOf } from './request.js';
import type { RerunRequest } from './rerun-input.js';

export function rerunCallInput(
  recorded: Pick<RerunRequest, 'request' | 'output'>,
  model: string,
  options: { retry?: RetryPlan | false; budget?: Budget } = {},
): ModelCallInput {
  const { request, output } = recorded;
  const settings = settingsOf(request) as ModelSettings;
  return {
    model,
    messages: request.prompt,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
    ...(request.providerOptions !== undefined ? { providerOptions: request.providerOptions } : {}),
    ...(request.headers !== undefined ? { headers: request.headers } : {}),
    ...(output ? { output: { schema: output.schema } } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
  };
}
