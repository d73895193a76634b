import { it } from 'vitest';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import { ok, toolCall, startLoopbackProvider, fail, streamError } from '../../../loopback/index.js';
import { input, runAttempt, rejection } from './helpers.js';

it('smoke', async () => {
  const lp = await startLoopbackProvider();
  const reg = createProviderRegistry(
    { gem: { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'K' }, resp: { type: 'openai-responses', baseURL: lp.openaiBaseURL, apiKeyEnv: 'K' } },
    { env: { K: 'sk-test-key-000000000' } },
  );
  for (const p of ['gem', 'resp']) {
    lp.script('m', [ok('hello there world'), toolCall('calc', { a: 1 }), ok('', { finishReason: 'length' }), ok('cut', { finishReason: 'length' }), fail(429, { retryDelay: '30s' }), streamError('server_error', {afterChunks: 1}), streamError('rate_limit_exceeded', {event: 'response.failed'})]);
    console.log(p, JSON.stringify(await runAttempt(reg, input(`${p}:m`)).done));
    console.log(p, JSON.stringify(await runAttempt(reg, input(`${p}:m`)).done));
    console.log(p, JSON.stringify(await rejection(runAttempt(reg, input(`${p}:m`)).done).then((e: any) => e.details)));
    console.log(p, JSON.stringify(await runAttempt(reg, input(`${p}:m`)).done));
    console.log(p, JSON.stringify(await rejection(runAttempt(reg, input(`${p}:m`)).done).then((e: any) => e.details)));
    console.log(p, JSON.stringify(await rejection(runAttempt(reg, input(`${p}:m`, { stream: { batchMs: 60000 } })).done).then((e: any) => e.details)));
    console.log(p, JSON.stringify(await rejection(runAttempt(reg, input(`${p}:m`, { stream: { batchMs: 60000 } })).done).then((e: any) => e.details)));
    lp.script('m', [ok('hello there world'), toolCall('calc', { a: 1 })]);
    for (let i = 0; i < 2; i++) {
      const deltas: string[] = [];
      const r = await streamAnswer(reg.resolve(`${p}:m`).model, { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { add: (d) => deltas.push(d), finish: async () => {}, abandon: async () => {}, sent: 0 });
      console.log(p, 'stream', JSON.stringify(deltas), JSON.stringify(r.content), JSON.stringify(r.finishReason), JSON.stringify(r.usage));
    }
    console.log(JSON.stringify(lp.requests('m').map((r) => [r.path, r.stream, r.api])));
    lp.reset();
  }
  await lp.close();
});
