import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log warnings and errors only; a test that needs more reads the history instead.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process by an earlier test file.
}
