import type { ToolContext } from '../../src/agent/tool.js';

/** A ToolContext for tests: the owner on a test channel, not interactive, workspace `/tmp` unless given. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionId: 's',
    channel: 'test',
    chatId: 'c',
    senderId: 'owner',
    isOwner: true,
    interactive: false,
    workspace: '/tmp',
    ...overrides,
  };
}
