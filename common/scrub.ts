/**
 * Messages that go into history: bounded and scrubbed. No API key, no value of a credential header or query
 * parameter (`Authorization`, `cf-aig-authorization`, `x-auth`, `*-key`, `*-token`, `*-secret`, `?key=`), no
 * bearer token, no user and password of a URL, nothing that looks like an OpenAI or Anthropic key. Callers pass
 * only an error's message, never a request body (`requestBodyValues`) or a raw response body.
 */

/** The longest message a failure carries. */
export const MAX_MESSAGE_CHARS = 300;

/** The longest provider error code (or type) a failure carries: codes are identifiers, never prose. */
export const MAX_CODE_CHARS = 100;

const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for (they would blank ordinary words). */
const MIN_SECRET_CHARS = 6;

/**
 * The words that make a header or query parameter name a credential when the name, split at `-` and `_`, has
 * one of them: `authorization`, `cf-aig-authorization`, `x-auth`, `x-api-key`, `x-goog-api-key`,
 * `ocp-apim-subscription-key`, `x-proxy-token`, `private-token`, `x-client-secret`, `cookie`, `sig`.
 */
const CREDENTIAL_WORDS = [
  'authorization',
  'authentication',
  'auth',
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'credential',
  'credentials',
  'cookie',
  'signature',
  'sig',
  'session',
] as const;

const CREDENTIAL_WORD_SET: ReadonlySet<string> = new Set(CREDENTIAL_WORDS);

/** Whether a header (or query parameter) name carries a credential, by its words (see `CREDENTIAL_WORDS`). */
export function isCredentialName(name: string): boolean {
  return name
    .toLowerCase()
    .split(/[-_]/)
    .some((word) => CREDENTIAL_WORD_SET.has(word));
}

/** `name: value`, `"name":"value"`, `name=value` (a query too) for any credential name; a scheme is kept. */
const CREDENTIAL_PAIR = new RegExp(
  String.raw`\b((?:[a-z0-9]+[-_])*(?:${CREDENTIAL_WORDS.join('|')}))(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?[^\s"',;}&#]+`,
  'gi',
);

const PATTERNS: readonly (readonly [RegExp, string])[] = [
  // The user and password of a URL (`http://admin:pass@host/v1`): whatever comes before the `@`.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
  // A credential header echoed as `name: value` / `"name":"value"` / `name=value` (with a scheme or not).
  [
    /\b(authorization|proxy-authorization|x-api-key|api[-_]key)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"',;}]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  // OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-...) style keys.
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  // Any other credential header or query parameter, by its name's words.
  [CREDENTIAL_PAIR, `$1$2$3${REDACTED}`],
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every known secret and every credential-looking token replaced by `[redacted]`. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // A header value such as `Basic dXNlcjpwYXNz` is also searched for without its scheme (it is echoed so too).
  const withBare = secrets.flatMap((s) => {
    const bare = /^(?:bearer|basic|token)\s+(\S+)$/i.exec(s.trim())?.[1];
    return bare === undefined ? [s] : [s, bare];
  });
  const known = [...new Set(withBare.filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
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

/** What stands where a provider's message repeated the request's own text. */
export const REQUEST_TEXT = '[request text]';
/** Seeds searched for in the request's texts, every half seed along the message. */
const ECHO_SEED_CHARS = 16;
/** The shortest run of a message taken for an echo of the request (shorter ones are ordinary words). */
const ECHO_MIN_CHARS = 24;
/** How much of a message is searched: more than a bounded message can keep after whitespace is collapsed. */
const ECHO_SCAN_CHARS = 4 * MAX_MESSAGE_CHARS;

/**
 * `message` with every run of at least 24 characters that repeats one of `texts` (the request's messages, as
 * sent or JSON-escaped as a provider's error body may quote them) replaced by `[request text]`: a provider's
 * error that quotes the prompt leaves none of it in history (the contract: a message holds no request body).
 * Only the start of a long message is kept (it is bounded after this anyway).
 */
export function withoutRequestText(message: string, texts: readonly string[]): string {
  const m = message.length > ECHO_SCAN_CHARS ? message.slice(0, ECHO_SCAN_CHARS) : message;
  const sources = texts.flatMap((t) => {
    if (t.length < ECHO_MIN_CHARS) return [];
    const escaped = JSON.stringify(t).slice(1, -1);
    return escaped === t ? [t] : [t, escaped];
  });
  if (sources.length === 0 || m.length < ECHO_MIN_CHARS) return m;
  const echoed = new Uint8Array(m.length);
  const step = ECHO_SEED_CHARS / 2;
  for (let i = 0; i + ECHO_SEED_CHARS <= m.length; i += step) {
    const seed = m.slice(i, i + ECHO_SEED_CHARS);
    for (const t of sources) {
      for (let at = t.indexOf(seed), seen = 0; at >= 0 && seen < 4; at = t.indexOf(seed, at + 1), seen++) {
        let a = i;
        let b = at;
        while (a > 0 && b > 0 && m[a - 1] === t[b - 1]) {
          a--;
          b--;
        }
        let e = i + ECHO_SEED_CHARS;
        let f = at + ECHO_SEED_CHARS;
        while (e < m.length && f < t.length && m[e] === t[f]) {
          e++;
          f++;
        }
        if (e - a >= ECHO_MIN_CHARS) echoed.fill(1, a, e);
      }
    }
  }
  let out = '';
  for (let i = 0; i < m.length; i++) {
    if (echoed[i] !== 1) out += m[i];
    else if (i === 0 || echoed[i - 1] !== 1) out += REQUEST_TEXT;
  }
  return out;
}
