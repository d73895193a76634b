/**
 * Whatever one `doGenerate` threw, as the policy's `Observation`: status, headers, the provider's error code
 * and type, the socket code of the cause chain, how far the response got. Reads types, statuses, headers and
 * codes only, never a message's wording (provider patterns go through `ResponseReader.refineObservation`).
 *
 * The request timeout and the activity's cancellation are not read from the error: the activity knows which
 * of its own signals fired (see `model-request.ts`).
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { ObservedPhase } from '../../policy/index.js';
import type { Observation } from '../../policy/index.js';
import { hasCode, CONNECT_ONLY_CODES } from '../../policy/codes.js';

/** An observation and the raw message that goes with it (still to be scrubbed and bounded). */
export interface ObservedError {
  observation: Observation;
  message: string;
}

const MAX_DEPTH = 16;

/** The errors of a `cause` chain, outermost first (bounded, cycle-safe). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < MAX_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The first string `code` in the cause chain (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...). */
export function socketCodeOf(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
}

const isParseError = (e: unknown): boolean =>
  JSONParseError.isInstance(e) ||
  TypeValidationError.isInstance(e) ||
  InvalidResponseDataError.isInstance(e) ||
  EmptyResponseBodyError.isInstance(e);

const rec = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : undefined;

/**
 * The provider's error code and type from a parsed error body: OpenAI `{ error: { type, code } }`, Anthropic
 * `{ type: 'error', error: { type } }`, and the flat `{ code, type }` some compatible servers send.
 */
export function providerErrorOf(data: unknown): { code?: string; type?: string } {
  const body = rec(data);
  const inner = rec(body?.error);
  const code = str(inner?.code) ?? (inner === undefined ? str(body?.code) : undefined);
  const type =
    str(inner?.type) ?? (inner === undefined && body?.type !== 'error' ? str(body?.type) : undefined);
  return { ...(code === undefined ? {} : { code }), ...(type === undefined ? {} : { type }) };
}

/** The error body: the SDK's parsed `data`, else the response body parsed as JSON (for its codes only). */
function errorData(error: APICallError): unknown {
  if (error.data !== undefined) return error.data;
  if (error.responseBody === undefined) return undefined;
  try {
    return JSON.parse(error.responseBody) as unknown;
  } catch {
    return undefined;
  }
}

function lowerHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function observeApiCallError(error: APICallError): Observation {
  const o: Observation = {};
  const status = error.statusCode;
  if (status !== undefined) o.status = status;
  const headers = lowerHeaders(error.responseHeaders);
  if (headers !== undefined) o.headers = headers;
  const { code, type } = providerErrorOf(errorData(error));
  if (code !== undefined) o.providerCode = code;
  if (type !== undefined) o.providerType = type;
  const socketCode = socketCodeOf(error.cause);
  if (socketCode !== undefined) o.socketCode = socketCode;
  if (status === undefined) {
    if (hasCode(CONNECT_ONLY_CODES, socketCode)) o.phase = ObservedPhase.BeforeSend;
    else if (socketCode !== undefined) o.phase = ObservedPhase.Sent;
    return o;
  }
  o.phase = ObservedPhase.Body;
  if (status >= 200 && status < 300) {
    // A 2xx that failed: the socket broke mid-body, or a complete body could not be used.
    if (socketCode !== undefined) o.bodyComplete = false;
    else if (causeChain(error.cause).some(isParseError)) {
      o.bodyComplete = true;
      o.parseFailed = true;
    }
  }
  return o;
}

/** The observation of an error thrown by `doGenerate` (not a timeout or cancellation of ours). */
export function observeError(error: unknown): ObservedError {
  const message = error instanceof Error ? error.message : String(error);
  if (APICallError.isInstance(error)) return { observation: observeApiCallError(error), message };
  // The provider refused the request's shape before sending it (a file kind, a tool or a setting this model or
  // its provider does not take): the same request fails the same way on this backend, so it is dropped.
  if (UnsupportedFunctionalityError.isInstance(error))
    return { observation: { misconfigured: true }, message };
  if (isParseError(error)) {
    return { observation: { parseFailed: true, bodyComplete: true }, message };
  }
  const socketCode = socketCodeOf(error);
  if (socketCode === undefined) return { observation: {}, message };
  const phase = hasCode(CONNECT_ONLY_CODES, socketCode) ? ObservedPhase.BeforeSend : ObservedPhase.Sent;
  return { observation: { socketCode, phase }, message };
}
