import { Client, Connection } from '@temporalio/client';
import { ModelRetryPlugin } from 'model-retry/plugin';
import type { answer } from './workflows.js';

const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const client = new Client({ connection, plugins: [new ModelRetryPlugin()] });
const workflowId = `answer-${Date.now()}`;
const text = await client.workflow.execute<typeof answer>('answer', {
  taskQueue: 'quick-start',
  workflowId,
  args: ['Why is the sky blue? One sentence.'],
});
console.log(text);
console.log(`every attempt and wait: npx model-retry history ${workflowId}`);
await connection.close();
