import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ModelRetryPlugin } from 'model-retry/plugin';

const connection = await NativeConnection.connect({
  address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
});
const worker = await Worker.create({
  connection,
  taskQueue: 'quick-start',
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  // model-retry's activities (and its data converter, given `payloads`); provider keys are read here only.
  plugins: [new ModelRetryPlugin()],
});
await worker.run();
