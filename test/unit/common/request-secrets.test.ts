import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidModelCallInputError } from '../../../common/input-error.js';
import {
  CREDENTIAL_HEADERS,
  checkHeaders,
  checkProviderOptions,
  checkUrlUserinfo,
} from '../../../common/request-secrets.js';
import { checkCallInput } from '../../../common/call-input/call-input.js';

/** The refusal `run` throws: its field, and its message. */
function refusal(run: () => void): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidModelCallInputError);
    const e = error as InvalidModelCallInputError;
    return { field: e.field, message: e.message };
  }
  throw new Error('expected a refusal, and nothing was refused');
}

/** `name` with each letter in upper or lower case, as `flags` say. */
const cased = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((flags) => [...name].map((c, i) => (flags[i] ? c.toUpperCase() : c)).join(''));

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl';

describe('checkHeaders', () => {
  it('refuses every credential header by name, in any case, naming it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CREDENTIAL_HEADERS).chain(cased),
        fc.string({ maxLength: 10 }),
        (name, value) => {
          const { field, message } = refusal(() => checkHeaders({ 'x-fine': 'ok', [name]: value }));
          expect(field).toBe(`headers.${name}`);
          expect(message).toMatch(
            /is a credential header, and a request is written into the workflow's history/,
          );
          expect(message).toMatch(/`apiKeyEnv`, `headersFromEnv`/);
        },
      ),
    );
  });

  it.each([
    ['authorization'],
    ['proxy-authorization'],
    ['x-api-key'],
    ['api-key'],
    ['cookie'],
    ['x-goog-api-key'],
  ])('names %s a credential header', (name) => {
    expect(CREDENTIAL_HEADERS).toContain(name);
  });

  it.each([
    ['a bearer token', 'Bearer abc.def'],
    ['a bearer token in lower case', 'bearer abc'],
    ['basic credentials', 'Basic dXNlcjpwYXNz'],
    ['an OpenAI key', 'sk-proj-0123456789abcdef'],
    ['an Anthropic key', 'sk-ant-api03-abcdefghij'],
    ['a JWT', JWT],
    ['a JWT after spaces', `  ${JWT}`],
  ])('refuses a header whose value is %s, whatever its name', (_name, value) => {
    const { field, message } = refusal(() => checkHeaders({ 'x-upstream-auth': value }));
    expect(field).toBe('headers.x-upstream-auth');
    expect(message).toMatch(/looks like a credential \(a bearer token, a JWT or an `sk-` key\)/);
  });

  it.each([
    [{ 'x-request-tag': 'checkout' }],
    [{ 'anthropic-beta': 'prompt-caching-2024-07-31' }],
    [{ 'OpenAI-Organization': 'org-123', 'x-trace': 'sk-short' }],
    [{ 'x-title': 'the risk report', 'x-empty': '' }],
    [{ 'x-skipped': undefined }],
    [{}],
  ])('takes plain headers %j', (headers) => {
    expect(() => checkHeaders(headers)).not.toThrow();
  });

  it('lets a header the worker allows through by name, whatever its value (the worker chose to keep it)', () => {
    expect(() => checkHeaders({ Cookie: 'session=1' }, ['cookie'])).not.toThrow();
    expect(() => checkHeaders({ 'X-Api-Key': 'sk-abcdefghijklmnop' }, ['x-api-key'])).not.toThrow();
    expect(refusal(() => checkHeaders({ Cookie: 'session=1' }, ['x-api-key'])).field).toBe('headers.Cookie');
    expect(refusal(() => checkHeaders({ 'X-Trace': 'Bearer abc' }, ['cookie'])).message).toMatch(
      /looks like a credential/,
    );
  });

  it("leaves credentials for later with 'any', still checking the headers' shape", () => {
    expect(() => checkHeaders({ Authorization: 'Bearer abc' }, 'any')).not.toThrow();
    expect(refusal(() => checkHeaders({ 'x-n': 1 }, 'any')).field).toBe('headers.x-n');
  });

  it.each([
    ['headers that are no object', 'x: 1', 'headers', /must be an object of header names and string values/],
    ['headers as a list', [['x', '1']], 'headers', /must be an object/],
    ['a header value that is no string', { 'x-n': 1 }, 'headers.x-n', /must be a string/],
  ])('refuses %s', (_name, headers, field, message) => {
    const found = refusal(() => checkHeaders(headers));
    expect(found.field).toBe(field);
    expect(found.message).toMatch(message);
  });

  it('names the field under another root', () => {
    expect(refusal(() => checkHeaders({ Authorization: 'x' }, [], 'settings.headers')).field).toBe(
      'settings.headers.Authorization',
    );
  });
});

describe('checkProviderOptions', () => {
  const keyName = fc.constantFrom(
    'apiKey',
    'api_key',
    'api-key',
    'APIKEY',
    'secretKey',
    'accessToken',
    'authToken',
    'password',
  );
  const segment = fc
    .stringMatching(/^[a-z][a-zA-Z]{0,6}$/)
    .filter((s) => !/^(api|apikey|password|secret|access|auth)/i.test(s));

  it('refuses an API key at any depth, naming its field', () => {
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        keyName,
        fc.string({ minLength: 1 }),
        (path, key, value) => {
          let options: unknown = { [key]: value, other: 'fine' };
          for (const p of [...path].reverse()) options = { [p]: options };
          const { field, message } = refusal(() => checkProviderOptions(options));
          expect(field).toBe(['providerOptions', ...path, key].join('.'));
          expect(message).toMatch(/holds a credential, and a request is written into the workflow's history/);
        },
      ),
    );
  });

  it('finds a key inside a list', () => {
    expect(
      refusal(() => checkProviderOptions({ openai: { servers: [{ url: 'u' }, { apiKey: 'k' }] } })).field,
    ).toBe('providerOptions.openai.servers[1].apiKey');
  });

  it.each([
    [{ openai: { reasoningEffort: 'high', store: false } }],
    [
      {
        anthropic: { cacheControl: { type: 'ephemeral' }, thinking: { type: 'enabled', budgetTokens: 1024 } },
      },
    ],
    [{ openai: { apiKey: '' } }],
    [{ openai: { apiKey: null, password: 3 } }],
    [{ google: { keyFile: 'ok', apiKeyEnv: 'GOOGLE_API_KEY' } }],
    [{ anthropic: { signature: 'EqQBCkgIARAB', redactedData: 'abc' }, openai: { itemId: 'rs_1' } }],
    [undefined],
  ])('takes provider options without a key: %j', (options) => {
    expect(() => checkProviderOptions(options)).not.toThrow();
  });
});

describe('checkUrlUserinfo', () => {
  it.each([
    ['a header value', { 'x-callback': 'https://hook:secret@example.com/cb' }, 'headers.x-callback'],
    ['a user name alone', { 'x-callback': 'ftp://me@files.example.com/a.pdf' }, 'headers.x-callback'],
    ['a list', ['https://example.com', 'https://a:b@example.com'], 'headers[1]'],
  ])('refuses userinfo in a field that holds a URL: %s, naming its field', (_name, value, field) => {
    const found = refusal(() => checkUrlUserinfo(value, 'headers'));
    expect(found.field).toBe(field);
    expect(found.message).toMatch(/holds a URL with a user name or password/);
  });

  it('finds userinfo wherever it is in a generated value', () => {
    const key = fc.stringMatching(/^[a-z]{1,6}$/);
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string().filter((s) => !s.includes('@')),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.dictionary(key, tree, { minKeys: 1, maxKeys: 3 }),
        fc.array(key, { minLength: 1, maxLength: 3 }),
        (value, path) => {
          expect(() => checkUrlUserinfo(value, 'v')).not.toThrow();
          let placed: unknown = 'https://user:pw@example.com/';
          for (const p of [...path].reverse()) placed = { [p]: placed };
          const found = refusal(() => checkUrlUserinfo({ ...value, zz: placed }, 'v'));
          expect(found.field).toBe(['v', 'zz', ...path].join('.'));
        },
      ),
    );
  });

  it.each([
    ['an email address', 'write to a@example.com'],
    ['an @ in a path or query', 'https://example.com/users/@me?mail=a@b.com'],
    ['a plain URL', 'https://example.com/a.pdf'],
    ['a user name without a password', 'clone ssh://git@github.com/x/y.git'],
    ['base64', 'QUJDRA=='],
  ])('takes %s in free text', (_name, text) => {
    expect(() => checkUrlUserinfo(text, 'prompt', 'text')).not.toThrow();
  });

  it('refuses a URL with a password in free text, naming the field', () => {
    expect(refusal(() => checkUrlUserinfo('connect to postgres://app:pw@db/x', 'prompt', 'text')).field).toBe(
      'prompt',
    );
  });
});

describe("a call's input is refused with the field of its secret", () => {
  const call = (extra: Record<string, unknown>) => ({ model: 'local:m', prompt: 'hi', ...extra });

  it.each([
    ['a credential header', { headers: { Authorization: 'Bearer x' } }, 'headers.Authorization'],
    ['an x-api-key header', { headers: { 'X-Api-Key': 'k' } }, 'headers.X-Api-Key'],
    ['an sk- key in any header', { headers: { 'x-forward': 'sk-abcdefghijklmnop' } }, 'headers.x-forward'],
    [
      'an API key in provider options',
      { providerOptions: { openai: { apiKey: 'sk-x' } } },
      'providerOptions.openai.apiKey',
    ],
    ['userinfo in the system prompt', { system: 'use https://u:p@example.com' }, 'system'],
    ['userinfo in the prompt', { prompt: 'fetch https://u:p@example.com' }, 'prompt'],
    [
      'a password URL in a user message text',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'see https://t:pw@example.com' }] }] },
      'messages[0].content[0].text',
    ],
    [
      'a password URL in a string user message, after a system message',
      { system: 's', messages: [{ role: 'user', content: 'see https://t:pw@example.com' }] },
      'messages[0].content',
    ],
    [
      "a bearer token in a message part's provider options",
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'hi', providerOptions: { x: { auth: 'Bearer abcdef' } } }],
          },
        ],
      },
      'messages[0].content[0].providerOptions.x.auth',
    ],
    [
      "an MCP server's authorization token in provider options",
      { providerOptions: { anthropic: { mcpServers: [{ url: 'https://m', authorizationToken: 't0k' }] } } },
      'providerOptions.anthropic.mcpServers[0].authorizationToken',
    ],
    [
      "a credential header of a provider tool's MCP server",
      {
        tools: [
          {
            type: 'provider',
            id: 'openai.mcp',
            name: 'mcp',
            args: { serverUrl: 'https://m', headers: { Authorization: 'Token abc' } },
          },
        ],
      },
      'tools[0].args.headers.Authorization',
    ],
    [
      'userinfo in an image URL',
      { messages: [{ role: 'user', content: [{ type: 'image', image: 'https://u:p@example.com/c.png' }] }] },
      'messages[0].content[0].image',
    ],
    [
      'userinfo in provider options',
      { providerOptions: { openai: { baseURL: 'https://u:p@example.com' } } },
      'providerOptions.openai.baseURL',
    ],
    [
      'userinfo in a tool description',
      { tools: [{ name: 'w', description: 'https://u:p@example.com', inputSchema: { type: 'object' } }] },
      'tools[0].description',
    ],
  ])('%s', (_name, extra, field) => {
    expect(refusal(() => checkCallInput(call(extra))).field).toBe(field);
  });
});
