import type { ModelCallInput } from '../call.js';
import type { WireTool } from '../request.js';
import { checkProviderOptions, checkUrlUserinfo } from '../request-secrets.js';

/**
 * Credentials anywhere else in what the call sends (headers are checked apart, with the worker's `allowHeaders`;
 * file URLs as they convert): in the provider options of the call, of each message, part and tool, and in a
 * provider-defined tool's arguments; a URL with a user name or password in a header's value; and in the text the
 * caller wrote (system, prompt, user messages) a URL with a password. An assistant's or a tool's text is not held
 * to it: the model or a tool wrote it, and refusing it would end every later step of a conversation.
 */
export function checkRequestSecrets(call: ModelCallInput, tools: WireTool[] | undefined): void {
  checkUrlUserinfo(call.headers, 'headers');
  checkUrlUserinfo(call.system, 'system', 'text');
  checkUrlUserinfo(call.prompt, 'prompt', 'text');
  (tools ?? []).forEach((tool, i) => {
    if (tool.type === 'provider') checkProviderOptions(tool.args, `tools[${i}].args`);
    else {
      checkProviderOptions(tool.providerOptions, `tools[${i}].providerOptions`);
      checkUrlUserinfo(tool.description, `tools[${i}].description`, 'text');
    }
  });
  (call.messages ?? []).forEach((m, i) => {
    const message = m as { role?: unknown; content?: unknown; providerOptions?: unknown };
    const at = `messages[${i}]`;
    checkProviderOptions(message.providerOptions, `${at}.providerOptions`);
    const written = message.role === 'system' || message.role === 'user';
    if (written && typeof message.content === 'string')
      checkUrlUserinfo(message.content, `${at}.content`, 'text');
    if (!Array.isArray(message.content)) return;
    message.content.forEach((p, j) => {
      const part = (typeof p === 'object' && p !== null ? p : {}) as {
        type?: unknown;
        text?: unknown;
        providerOptions?: unknown;
      };
      checkProviderOptions(part.providerOptions, `${at}.content[${j}].providerOptions`);
      if (written && part.type === 'text') checkUrlUserinfo(part.text, `${at}.content[${j}].text`, 'text');
    });
  });
}
