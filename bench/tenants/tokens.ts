import type { Client } from '@temporalio/client';
import { callToItsEnd } from './call.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { MAX_OUTPUT_TOKENS } from './plan.js';

/** One side of the tokens-per-minute part: the bucket on or off. */
export interface TokensSide {
  bucket: 'on' | 'off';
  calls: number;
  succeeded: number;
  /** Requests the provider received, and those it answered 429. */
  requests: number;
  rateLimited: number;
  /** How the calls that did not succeed stopped, by stop reason. */
  stops: Record<string, number>;
}

/** All calls at once (one attempt each, so a 429 is met once per call at most) against one model. */
export async function runTokens(
  client: Client,
  taskQueue: string,
  lp: LoopbackProvider,
  side: { bucket: 'on' | 'off'; model: { id: string; name: string } },
  calls: number,
): Promise<TokensSide> {
  const stops = await Promise.all(
    Array.from({ length: calls }, () =>
      callToItsEnd(client, taskQueue, {
        model: side.model.name,
        prompt: 'hi',
        settings: { maxOutputTokens: MAX_OUTPUT_TOKENS },
      }),
    ),
  );
  const requests = lp.requests(side.model.id);
  const byStop: Record<string, number> = {};
  for (const s of stops) if (s !== 'succeeded') byStop[s] = (byStop[s] ?? 0) + 1;
  return {
    bucket: side.bucket,
    calls,
    succeeded: stops.filter((s) => s === 'succeeded').length,
    requests: requests.length,
    rateLimited: requests.filter((r) => r.status === 429).length,
    stops: byStop,
  };
}
