/**
 * Machine-readable codes that classification recognises. Compared case-insensitively. These are codes and
 * types documented by providers and by Node/undici, never words picked out of a message.
 */

/** Provider error codes/types that mean a content-policy refusal. */
export const CONTENT_FILTER_CODES: ReadonlySet<string> = new Set([
  'content_filter', // Azure OpenAI
  'content_policy_violation', // OpenAI
  'content_filtered',
]);

/**
 * Finish (stop) reasons that mean the provider refused or cut the answer on content policy:
 * OpenAI/Azure `content_filter`, the AI SDK's `content-filter`, Anthropic's `refusal`, Gemini's
 * `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `IMAGE_SAFETY`.
 */
export const CONTENT_FILTER_FINISH_REASONS: ReadonlySet<string> = new Set([
  'content_filter',
  'content-filter',
  'refusal',
  'safety',
  'recitation',
  'blocklist',
  'prohibited_content',
  'spii',
  'image_safety',
]);

/**
 * Finish (stop) reasons that mean the answer stopped at the output token limit: OpenAI's and the AI SDK's
 * `length`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`, OpenAI Responses' `max_output_tokens`.
 */
export const OUTPUT_LIMIT_FINISH_REASONS: ReadonlySet<string> = new Set([
  'length',
  'max_tokens',
  'max_output_tokens',
]);

/** Provider error codes/types that mean the request exceeds the model's context window. */
export const CONTEXT_TOO_LONG_CODES: ReadonlySet<string> = new Set([
  'context_length_exceeded', // OpenAI and OpenAI-compatible servers
  'context_window_exceeded',
  'model_context_window_exceeded', // Anthropic stop reason
]);

/** Provider error codes/types that mean an account quota or billing limit (not a rate limit). */
export const QUOTA_CODES: ReadonlySet<string> = new Set([
  'insufficient_quota', // OpenAI
  'billing_hard_limit_reached', // OpenAI
  'billing_not_active', // OpenAI
  'quota_exceeded',
  'billing_error', // Anthropic (HTTP 402)
]);

/** Provider error codes/types that mean the model does not exist (OpenAI `model_not_found`). */
export const MODEL_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['model_not_found']);

/**
 * Socket and client codes that can only happen before any byte of the request was sent: connection
 * refused, DNS, connect timeout, TLS handshake and certificate failures.
 */
export const CONNECT_ONLY_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
]);

/** Client codes that mean the connection was up but no (complete) answer came in time. */
export const RESPONSE_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Whether `code` (any case) is in `set` (upper-case socket codes or lower-case provider codes). */
export function hasCode(set: ReadonlySet<string>, code: string | undefined): boolean {
  if (code === undefined) return false;
  return set.has(code.toLowerCase()) || set.has(code.toUpperCase());
}

/** Whether a socket code is a TLS/SSL failure (`ERR_SSL_*`, `ERR_TLS_*`): always before send. */
export function isTlsCode(code: string | undefined): boolean {
  if (code === undefined) return false;
  const upper = code.toUpperCase();
  return upper.startsWith('ERR_SSL_') || upper.startsWith('ERR_TLS_');
}
