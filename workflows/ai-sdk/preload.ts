/**
 * `model-retry/ai-sdk/preload`: installs the AI SDK's polyfills when it is loaded. `ModelRetryPlugin` puts it first
 * in the workflow bundle, so it runs before `ai` is evaluated whatever the import order of the user's workflow
 * code. Without the plugin, import it first in the workflows entry (`import 'model-retry/ai-sdk/preload';`).
 * @module model-retry/ai-sdk/preload
 */
import { installAiSdkPolyfills } from './polyfills.js';

installAiSdkPolyfills();
