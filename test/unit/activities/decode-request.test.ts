import { describe, expect, it } from 'vitest';
import { decodeRequest } from '../../../activities/attempt/prompt.js';
import type { WireRequest } from '../../../common/request.js';

describe("the attempt's request decoded from its wire form", () => {
  it('makes every file URL a URL, also inside tool results, and keeps base64 data as it is', () => {
    const request: WireRequest = {
      spec: 1,
      prompt: [
        {
          role: 'user',
          content: [
            { type: 'file', mediaType: 'image/png', data: { type: 'url', url: 'https://example.com/a.png' } },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'chart',
              output: {
                type: 'content',
                value: [
                  {
                    type: 'file',
                    mediaType: 'image/png',
                    data: { type: 'url', url: 'https://example.com/c.png' },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    const { prompt } = decodeRequest(request);
    const user = prompt[0];
    if (user?.role !== 'user') throw new Error('expected the user message');
    const [url, data] = user.content;
    expect(url?.type === 'file' && url.data).toEqual({
      type: 'url',
      url: new URL('https://example.com/a.png'),
    });
    expect(url?.type === 'file' && url.data.type === 'url' && url.data.url instanceof URL).toBe(true);
    expect(data?.type === 'file' && data.data).toEqual({ type: 'data', data: 'iVBORw0KGgo=' });
    const tool = prompt[1];
    if (tool?.role !== 'tool') throw new Error('expected the tool message');
    const result = tool.content[0];
    const file =
      result?.type === 'tool-result' && result.output.type === 'content' ? result.output.value[0] : undefined;
    expect(file?.type === 'file' && file.data.type === 'url' && file.data.url instanceof URL).toBe(true);
  });

  it("leaves a tool's own JSON alone, even where it looks like file data", () => {
    const request: WireRequest = {
      spec: 1,
      prompt: [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 't1', toolName: 'link', input: { type: 'url', url: '/docs/a' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'link',
              output: { type: 'json', value: { type: 'url', url: '/docs/a' } },
            },
          ],
        },
      ],
    };
    const { prompt } = decodeRequest(request);
    expect(prompt).toEqual(request.prompt);
    expect(prompt[0]).toBe(request.prompt[0]);
    expect(prompt[1]).toBe(request.prompt[1]);
  });
});
