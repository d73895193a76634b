import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log errors only (every scripted fault would otherwise log a warning); a test that needs more reads the history instead.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process by an earlier test file.
}
