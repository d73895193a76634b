/**
 * Messages that go into history: bounded and scrubbed. No API key, no `Authorization` / `x-api-key` value, no
 * bearer token, nothing that looks like an OpenAI or Anthropic key. Callers pass only an error's message,
 * never a request body (`requestBodyValues`) or a raw response body.
 */

/** The longest message a failure carries. */
export const MAX_MESSAGE_CHARS = 300;

/** The longest provider error code (or type) a failure carries: codes are identifiers, never prose. */
export const MAX_CODE_CHARS = 100;

const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for (they would blank ordinary words). */
const MIN_SECRET_CHARS = 6;

const PATTERNS: readonly (readonly [RegExp, string])[] = [
  // A credential header echoed as `name: value` / `"name":"value"` / `name=value` (with a scheme or not).
  [
    /\b(authorization|proxy-authorization|x-api-key|api[-_]key)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"',;}]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  // OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-...) style keys.
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every known secret and every credential-looking token replaced by `[redacted]`. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  const known = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  for (const secret of known) {
    out = out.replace(new RegExp(escapeRegExp(secret), 'g'), REDACTED);
    // A key may also come back URL-encoded (e.g. in an echoed query string).
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.replace(new RegExp(escapeRegExp(encoded), 'g'), REDACTED);
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A message fit for history: scrubbed first (so a cut never leaves part of a secret), whitespace collapsed,
 * then cut to {@link MAX_MESSAGE_CHARS} with an ellipsis.
 */
export function boundedMessage(text: string, secrets: readonly string[] = []): string {
  return bounded(text, secrets, MAX_MESSAGE_CHARS);
}

/**
 * A provider error code fit for history: scrubbed and cut like a message, to {@link MAX_CODE_CHARS}. The code
 * comes from the provider's error body, which may hold anything (a proxy has been seen to put the rejected key
 * there); classification reads the raw code, only the record's copy is bounded.
 */
export function boundedCode(code: string, secrets: readonly string[] = []): string {
  return bounded(code, secrets, MAX_CODE_CHARS);
}

function bounded(text: string, secrets: readonly string[], max: number): string {
  const clean = scrub(text, secrets).replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}
