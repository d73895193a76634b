import type { ModelCallInput } from '../common/call.js';
import type { WireToolChoice } from '../common/request.js';
import { UsageError } from './args.js';

/** `parseArgs` options of the request flags `call` and `turn` share. */
export const REQUEST_FLAG_OPTIONS = {
  'provider-options': { type: 'string' },
  header: { type: 'string', multiple: true },
  tenant: { type: 'string' },
} as const;

/** `--tool-choice`: `call` only (a turn's model decides each step itself). */
export const TOOL_CHOICE_OPTION = { 'tool-choice': { type: 'string' } } as const;

const OPTIONS_EXAMPLE = `\`--provider-options '{"openai":{"reasoningEffort":"low"}}'\``;

/**
 * `--provider-options JSON` as the input's `providerOptions`: a JSON object keyed by provider, each holding an
 * object of that provider's options. Credentials in it are the input check's to refuse.
 * @throws UsageError naming the flag and the fix.
 */
export function providerOptionsFromFlag(text: string | undefined): ModelCallInput['providerOptions'] {
  if (text === undefined) return undefined;
  let options: unknown;
  try {
    options = JSON.parse(text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : 'not JSON';
    throw new UsageError(
      `\`--provider-options\` is not JSON (${why}): give an object keyed by provider, e.g. ${OPTIONS_EXAMPLE}.`,
    );
  }
  if (!isObject(options)) {
    throw new UsageError(
      `\`--provider-options\` must be a JSON object keyed by provider, e.g. ${OPTIONS_EXAMPLE}.`,
    );
  }
  for (const [provider, value] of Object.entries(options)) {
    if (!isObject(value)) {
      throw new UsageError(
        `\`--provider-options\` ${JSON.stringify(provider)} must hold an object of that provider's options, e.g. ${OPTIONS_EXAMPLE}.`,
      );
    }
  }
  return options as NonNullable<ModelCallInput['providerOptions']>;
}

/** An HTTP header name (RFC 9110's token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `--header NAME:VALUE` (repeatable) as the input's `headers`. The syntax is checked here; credentials are the
 * input check's to refuse (a request is written into the history), worded as this flag by {@link requestFlagOf}.
 * @throws UsageError naming the flag and the fix.
 */
export function headersFromFlags(given: readonly string[] | undefined): Record<string, string> | undefined {
  if (given === undefined || given.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const entry of given) {
    const colon = entry.indexOf(':');
    const name = entry.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      throw new UsageError(
        `\`--header\` takes NAME:VALUE with NAME a header name, e.g. \`--header X-Trace-Id:abc123\`; got ${JSON.stringify(entry.slice(0, 40))}.`,
      );
    }
    const value = entry.slice(colon + 1).trim();
    // A header value never holds a line break: one here would be refused by fetch mid-attempt, not before start.
    if (/[\r\n\0]/.test(value)) {
      throw new UsageError(`\`--header ${name}\`: a header value is one line, without control characters.`);
    }
    if (Object.keys(headers).some((n) => n.toLowerCase() === name.toLowerCase())) {
      throw new UsageError(`\`--header ${name}\` is given twice: give each header once.`);
    }
    headers[name] = value;
  }
  return headers;
}

/**
 * `--tool-choice auto|none|required|tool:NAME` as the input's `toolChoice`; whether NAME is one of the call's tools
 * is the input check's.
 * @throws UsageError naming the flag and the choices.
 */
export function toolChoiceFromFlag(text: string | undefined): WireToolChoice | undefined {
  if (text === undefined) return undefined;
  const choice = text.trim();
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  const toolName = /^tool:(.+)$/.exec(choice)?.[1]?.trim();
  if (toolName) return { type: 'tool', toolName };
  throw new UsageError(
    `\`--tool-choice\` is one of auto, none, required, or tool:NAME (that tool only), not ${JSON.stringify(text)}.`,
  );
}

/**
 * The flag of a refused request field: `providerOptions.<path>` -> `--provider-options <path>`, `headers.<name>` ->
 * `--header <name>`, `toolChoice...` -> `--tool-choice`; `undefined` for other fields.
 */
export function requestFlagOf(field: string): string | undefined {
  const option = /^providerOptions(?:\.(.+))?$/.exec(field);
  if (option) return option[1] === undefined ? '--provider-options' : `--provider-options ${option[1]}`;
  const header = /^headers(?:\.(.+))?$/.exec(field);
  if (header) return header[1] === undefined ? '--header' : `--header ${header[1]}`;
  if (field === 'toolChoice' || field.startsWith('toolChoice.')) return '--tool-choice';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Help text lines for the request flags; `call` adds {@link TOOL_CHOICE_HELP}. */
export const REQUEST_HELP = `Request (written into the workflow's history: credentials are refused, exit 2):
  --provider-options JSON
                       Provider options keyed by provider, sent as they are, e.g.
                       '{"anthropic":{"thinking":{"type":"enabled","budgetTokens":2000}}}'.
                       An apiKey in them is refused: keys belong to the worker.
  --header NAME:VALUE  A request header; repeat for more. Credential headers (authorization, x-api-key, ...)
                       and values that look like keys are refused.
  --tenant NAME        Who the run is for: its attempts carry NAME as Temporal's fairness key (with the weight
                       the worker's tenants file gives it), the tenant's envelope holds, and the run is found
                       by it (--query "ModelRetryTenant = 'NAME'"). At most 64 bytes, not *.
`;
export const TOOL_CHOICE_HELP = `  --tool-choice C      How the model may use tools: auto, none, required, or tool:NAME.
`;
