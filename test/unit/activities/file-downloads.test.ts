import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { createDownload } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FileDownloadFailed,
  observeDownloadError,
  withDownloadedFiles,
} from '../../../activities/attempt/file-downloads.js';
import type { DownloadFile } from '../../../activities/attempt/file-downloads.js';
import type { ModelRequestResult } from '../../../activities/index.js';
import { createActivities } from '../../../activities/index.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { REQUEST_SPEC } from '../../../common/request.js';
import type { WireRequest } from '../../../common/request.js';
import { ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { classify } from '../../../policy/index.js';
import { attemptFailure, builtinEnv, input, quietEnvironment } from './helpers.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const WAV = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x41, 0x56, 0x45]);

/** A download that serves `files` by URL and counts its calls. */
function served(files: Record<string, { data: Uint8Array; mediaType?: string }>) {
  const calls: string[] = [];
  const download: DownloadFile = ({ url }) => {
    calls.push(url.toString());
    const file = files[url.toString()];
    if (!file) return Promise.reject(new Error(`no file at ${url.toString()}`));
    return Promise.resolve({ data: file.data, mediaType: file.mediaType });
  };
  return { download, calls };
}

const fileAt = (url: string, mediaType: string) =>
  ({ type: 'file', mediaType, data: { type: 'url', url: new URL(url) } }) as const;

describe('a file the model cannot take by URL is downloaded and sent as bytes', () => {
  const signal = new AbortController().signal;
  const IMAGES = { 'image/*': [/^https:\/\/images\.example\/.*$/] };

  it.each<
    [
      string,
      string,
      string,
      Record<string, RegExp[]>,
      { mediaType?: string; data: Uint8Array },
      string | 'kept',
    ]
  >([
    [
      'an image the model takes by URL stays a URL',
      'https://images.example/cat.png',
      'image',
      IMAGES,
      { data: PNG },
      'kept',
    ],
    [
      'an image elsewhere: its bytes say image/png',
      'https://other.example/cat',
      'image',
      IMAGES,
      { data: PNG },
      'image/png',
    ],
    [
      'a top-level type completed by the server',
      'https://a.example/a',
      'audio',
      {},
      { data: WAV, mediaType: 'audio/wav' },
      'audio/wav',
    ],
    [
      'a full type kept against the server',
      'https://a.example/d.pdf',
      'application/pdf',
      {},
      { data: WAV, mediaType: 'application/octet-stream' },
      'application/pdf',
    ],
    [
      'a wildcard model takes every URL',
      'https://a.example/x',
      'audio/wav',
      { '*': [/^https:/] },
      { data: WAV },
      'kept',
    ],
  ])('%s', async (_name, url, mediaType, supportedUrls, file, expected) => {
    const { download, calls } = served({ [url]: file });
    const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [fileAt(url, mediaType)] }];
    const out = await withDownloadedFiles(prompt, supportedUrls, download, signal);
    if (expected === 'kept') {
      expect(out).toBe(prompt);
      expect(calls).toEqual([]);
      return;
    }
    expect(out[0]).toEqual({
      role: 'user',
      content: [{ type: 'file', mediaType: expected, data: { type: 'data', data: file.data } }],
    });
    expect(calls).toEqual([url]);
  });

  it('downloads each URL once, in user messages and inside tool results, and leaves other parts alone', async () => {
    const url = 'https://a.example/shared.png';
    const { download, calls } = served({ [url]: { data: PNG } });
    const prompt: LanguageModelV4Prompt = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          fileAt(url, 'image'),
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: { type: 'content', value: [{ type: 'text', text: 'here' }, fileAt(url, 'image')] },
          },
        ],
      },
    ];
    const out = await withDownloadedFiles(prompt, {}, download, signal);
    expect(calls).toEqual([url]);
    const bytes = { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } };
    expect(out[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        bytes,
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
      ],
    });
    expect(out[2]).toMatchObject({
      content: [{ output: { type: 'content', value: [{ type: 'text' }, bytes] } }],
    });
    expect(out[0]).toBe(prompt[0]);
  });
});

/** The AI SDK's own download over a fake network: `respond` answers each fetch. */
function sdkDownload(
  respond: (url: string) => Response | Promise<Response>,
  maxBytes?: number,
): DownloadFile {
  const fetch = (async (url: string | URL | Request) => respond(url.toString())) as typeof globalThis.fetch;
  return createDownload({ fetch, ...(maxBytes === undefined ? {} : { maxBytes }) });
}

const refused = (code: string) =>
  Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) }));

describe('a failed download is classified by its cause (nothing was sent to the provider)', () => {
  const SIGNED = 'https://files.example/report.pdf?signature=s3cr3t-token';
  it.each<[string, string, DownloadFile, string]>([
    [
      '404 at the file server',
      SIGNED,
      sdkDownload(() => new Response('no', { status: 404, statusText: 'Not Found' })),
      'BadRequest',
    ],
    ['403 at the file server', SIGNED, sdkDownload(() => new Response('no', { status: 403 })), 'BadRequest'],
    ['410 at the file server', SIGNED, sdkDownload(() => new Response('no', { status: 410 })), 'BadRequest'],
    [
      '503 at the file server',
      SIGNED,
      sdkDownload(() => new Response('busy', { status: 503 })),
      'ConnectFailed',
    ],
    [
      '429 at the file server',
      SIGNED,
      sdkDownload(() => new Response('slow down', { status: 429 })),
      'ConnectFailed',
    ],
    ['a refused connection', SIGNED, sdkDownload(() => refused('ECONNREFUSED')), 'ConnectFailed'],
    ['a name that does not resolve', SIGNED, sdkDownload(() => refused('ENOTFOUND')), 'ConnectFailed'],
    ['a socket reset mid-download', SIGNED, sdkDownload(() => refused('ECONNRESET')), 'ConnectFailed'],
    [
      'a private address the AI SDK will not fetch',
      'http://127.0.0.1/x.pdf',
      sdkDownload(() => new Response('x')),
      'BadRequest',
    ],
    [
      'a scheme it will not fetch',
      'ftp://files.example/x.pdf',
      sdkDownload(() => new Response('x')),
      'BadRequest',
    ],
    [
      'a file over the size limit',
      SIGNED,
      sdkDownload(() => new Response(new Uint8Array(64)), 16),
      'BadRequest',
    ],
  ])('%s -> %s', async (_name, url, download, expected) => {
    const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [fileAt(url, 'application/pdf')] }];
    const error = await withDownloadedFiles(prompt, {}, download, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileDownloadFailed);
    const observed = observeDownloadError(error as FileDownloadFailed);
    expect(classify(observed.observation)).toBe(expected);
    expect(observed.observation.status).toBeUndefined();
    expect(observed.message).toContain(new URL(url).host || url.split('/')[2]);
    expect(observed.message).not.toContain('s3cr3t-token');
  });
});

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

describe('the attempt downloads what its model cannot take, before it sends', () => {
  const AUDIO = 'https://files.example/hello.wav?sig=abc';
  const IMAGE = 'https://images.example/cat.png';
  const request: WireRequest = {
    spec: REQUEST_SPEC,
    prompt: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what do you hear and see?' },
          { type: 'file', mediaType: 'audio/wav', data: { type: 'url', url: AUDIO } },
          { type: 'file', mediaType: 'image/png', data: { type: 'url', url: IMAGE } },
        ],
      },
    ],
  };
  const run = (model: string, download: DownloadFile) => {
    const registry = createProviderRegistry(
      { local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL } },
      { env: builtinEnv(lp) },
    );
    const { modelRequest } = createActivities({ providers: registry, download, health: false });
    return quietEnvironment().run(modelRequest, input(model, { request })) as Promise<ModelRequestResult>;
  };

  it('openai-compatible (takes no URL): both files go as bytes', async () => {
    lp.script('m', [ok('a bell and a cat')]);
    const { download, calls } = served({
      [AUDIO]: { data: WAV, mediaType: 'audio/wav' },
      [IMAGE]: { data: PNG },
    });
    const result = await run('local:m', download);
    expect(result.text).toBe('a bell and a cat');
    expect(calls.sort()).toEqual([AUDIO, IMAGE].sort());
    const body = JSON.stringify(lp.requests('m')[0]?.body);
    expect(body).toContain('"input_audio"');
    expect(body).toContain('data:image/png;base64,');
    expect(body).not.toContain('images.example');
  });

  it('openai (takes image URLs): the image goes as its URL, the audio as bytes', async () => {
    lp.script('m', [ok('a bell and a cat')]);
    const { download, calls } = served({ [AUDIO]: { data: WAV, mediaType: 'audio/wav' } });
    await run('openai:m', download);
    expect(calls).toEqual([AUDIO]);
    const body = JSON.stringify(lp.requests('m')[0]?.body);
    expect(body).toContain(IMAGE);
    expect(body).toContain('"input_audio"');
  });

  it('a file that cannot be downloaded fails the attempt as its cause says, and nothing is sent', async () => {
    const download = sdkDownload(() => new Response('gone', { status: 404, statusText: 'Not Found' }));
    const { details } = await attemptFailure(run('local:m', download));
    expect(details.class).toBe('BadRequest');
    expect(details.message).toContain('https://files.example/hello.wav');
    expect(details.message).toContain('404');
    expect(details.message).not.toContain('sig=abc');
    expect(lp.requests()).toEqual([]);
  });
});
