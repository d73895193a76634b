import { sleep } from '@temporalio/workflow';

/** A durable timer alone: how late the server fires a timer of `waitMs` (the retry-overhead benchmark). */
export async function timerWorkflow(input: { waitMs: number }): Promise<void> {
  await sleep(input.waitMs, { summary: `wait ${input.waitMs} ms` });
}
