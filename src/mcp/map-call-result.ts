import type { ToolResult } from '../agent/tool.js';

interface ContentItem {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** An MCP `tools/call` result, as far as Wren reads it. */
export interface McpCallResult {
  content?: ContentItem[];
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

function describeItem(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return item.text ?? '';
    case 'image':
    case 'audio':
      return `[${item.type} ${item.mimeType ?? 'unknown type'}, ${base64Bytes(item.data)} bytes: shown to the user, not to you]`;
    case 'resource': {
      const resource = item.resource ?? {};
      if (typeof resource.text === 'string') return `[resource ${resource.uri ?? ''}]\n${resource.text}`;
      return `[resource ${resource.uri ?? ''} (${resource.mimeType ?? 'binary'}, ${base64Bytes(resource.blob)} bytes)]`;
    }
    case 'resource_link':
      return `[resource link ${item.uri ?? ''}${item.name ? ` "${item.name}"` : ''}${item.description ? `: ${item.description}` : ''}] (read it with mcp_server read_resource)`;
    default:
      return `[${item.type} content]`;
  }
}

/**
 * Maps an MCP tool result to Wren's: text parts joined for the model; images, audio and binary resources
 * described by type and size (their data goes to `details` for the UI); embedded text resources inlined;
 * `structuredContent` used when there is no text; `isError` kept. Output is always `untrusted`.
 */
export function mapCallResult(server: string, tool: string, result: McpCallResult): ToolResult {
  const items = Array.isArray(result.content) ? result.content : [];
  let text = items
    .map(describeItem)
    .filter((part) => part !== '')
    .join('\n');
  if (!items.some((item) => item.type === 'text') && result.structuredContent !== undefined) {
    text = [text, JSON.stringify(result.structuredContent)].filter(Boolean).join('\n');
  }
  if (!text && result.toolResult !== undefined) text = JSON.stringify(result.toolResult);
  const media = items
    .filter((item) => item.type === 'image' || item.type === 'audio' || item.resource?.blob)
    .map((item) => ({
      type: item.type,
      mimeType: item.mimeType ?? item.resource?.mimeType,
      data: item.data ?? item.resource?.blob,
    }));
  return {
    content: text || (result.isError ? `${tool} failed without a message.` : '(no output)'),
    details: {
      server,
      tool,
      ...(media.length ? { media } : {}),
      ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
    },
    ...(result.isError ? { isError: true } : {}),
    taint: 'untrusted',
  };
}
