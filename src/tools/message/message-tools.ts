import { z } from 'zod';
import { type Tool, type ToolContext, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { MessageBus } from '../../bus/message-bus.js';
import type { Attachment } from '../../bus/messages.js';
import { openFileForRead } from '../fs/open-file-for-read.js';
import { displayPath, resolveInRoots } from '../fs/workspace-path.js';

/** The largest file `send_file` delivers. */
export const SEND_FILE_MAX_BYTES = 50 * 1024 * 1024;

export interface MessageToolsOptions {
  bus: MessageBus;
  /** Workspace first, then extra roots (as for the file tools). */
  roots: () => string[];
  /** Channels that can deliver a message right now (`cli`, `api`, `telegram` …). */
  channels: () => string[];
  /** The owner's own chat on a channel: where a message to another channel goes without a chat_id. */
  ownerChat?: (channel: string) => string | undefined;
}

const messageParameters = z
  .object({
    text: z.string().min(1).max(20_000).describe('What to send'),
    channel: z.string().optional().describe('Channel to send on; the current one by default'),
    chat_id: z
      .string()
      .optional()
      .describe("Chat on that channel; default: this chat, or on another channel the owner's own chat"),
  })
  .strict();

const fileParameters = z
  .object({
    path: z.string().describe('Workspace file to deliver'),
    caption: z.string().max(2000).optional(),
  })
  .strict();

function target(
  ctx: ToolContext,
  ownerChat: MessageToolsOptions['ownerChat'],
  channel?: string,
  chatId?: string,
) {
  if (!channel || channel === ctx.channel) return { channel: ctx.channel, chatId: chatId ?? ctx.chatId };
  return { channel, chatId: chatId ?? ownerChat?.(channel) };
}

/**
 * `message` (send text to the owner on a channel/chat — the current one by default) and `send_file`
 * (deliver a workspace file through the current channel). Both publish an OutboundMessage of kind
 * `message`; the terminal prints it, the HTTP API streams it on /api/events with a download link.
 */
export function createMessageTools(options: MessageToolsOptions): Tool[] {
  const publish = (
    ctx: ToolContext,
    channel: string,
    chatId: string | undefined,
    text: string,
    attachments?: Attachment[],
  ) => {
    if (!options.channels().includes(channel)) {
      throw new ToolError(
        `Nobody would see it: channel "${channel}" is not connected right now (connected: ${options.channels().join(', ') || 'none'}). Put it in your reply instead.`,
      );
    }
    if (!chatId)
      throw new ToolError(`Name the chat_id: channel "${channel}" has no owner chat to send to by default.`);
    options.bus.publishOutbound({
      channel,
      chatId,
      replyTo: '',
      sessionId: ctx.sessionId,
      text,
      kind: 'message',
      usage: { inputTokens: 0, outputTokens: 0 },
      ...(attachments ? { attachments } : {}),
    });
  };
  const message: Tool = {
    name: 'message',
    description: 'Send a message to the owner now (on the current chat, or a named channel and chat).',
    parameters: toolSchema(messageParameters),
    risk: 'moderate',
    area: TOOL_AREAS.messaging,
    assess(raw, ctx) {
      const args = messageParameters.parse(raw);
      const to = target(ctx, options.ownerChat, args.channel, args.chat_id);
      const elsewhere = to.channel !== ctx.channel || to.chatId !== ctx.chatId;
      const where = `${to.channel}:${to.chatId ?? '?'}`;
      return { target: where, ...(elsewhere ? { egress: { target: where } } : {}) };
    },
    async execute(raw, ctx) {
      const args = messageParameters.parse(raw);
      const to = target(ctx, options.ownerChat, args.channel, args.chat_id);
      publish(ctx, to.channel, to.chatId, args.text);
      return { content: `Sent to ${to.channel}:${to.chatId}.` };
    },
  };
  const sendFile: Tool = {
    name: 'send_file',
    description: 'Deliver a workspace file to the owner as an attachment through the current chat.',
    parameters: toolSchema(fileParameters),
    risk: 'moderate',
    area: TOOL_AREAS.messaging,
    async assess(raw, ctx) {
      const args = fileParameters.parse(raw);
      return { target: `${ctx.channel}:${ctx.chatId}:${args.path}` };
    },
    async execute(raw, ctx) {
      const args = fileParameters.parse(raw);
      const roots = options.roots();
      // Opened as read_file opens (no symlink followed after the check, no hard-linked file): what is sent
      // is a file of the workspace, not what a link points at.
      const resolved = await resolveInRoots(roots, args.path);
      const opened = await openFileForRead({
        root: resolved.root,
        path: resolved.path,
        show: () => args.path,
      });
      await opened.handle.close();
      const { path } = resolved;
      const { info } = opened;
      if (info.size > SEND_FILE_MAX_BYTES) {
        throw new ToolError(
          `"${args.path}" is ${info.size} bytes; send_file delivers at most ${SEND_FILE_MAX_BYTES}.`,
        );
      }
      const name = displayPath(roots[0]!, path);
      publish(ctx, ctx.channel, ctx.chatId, args.caption ?? name, [{ path, name, size: info.size }]);
      return { content: `Sent ${name} (${info.size} bytes) to ${ctx.channel}:${ctx.chatId}.` };
    },
  };
  return [message, sendFile];
}
