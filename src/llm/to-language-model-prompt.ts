/**
 * Converts our request types into the AI SDK's provider-level (LanguageModelV3) prompt and tools.
 * Pure functions: no I/O, never throw.
 */
import type {
  JSONObject,
  LanguageModelV3FilePart,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
} from '@ai-sdk/provider';
import { nestsDeeperThan } from './json-depth.js';
import type { ChatMessage, ModelRequest, ToolDefinition } from './types.js';

export interface PromptOptions {
  /** Whether images may be sent; when false each image becomes a short text note. */
  vision: boolean;
  /**
   * Keep system blocks separate and mark the last `cache: true` block with an Anthropic cache breakpoint.
   * When false the blocks are joined into one system message (some local chat templates reject several).
   */
  anthropicCache: boolean;
}

/** Text that replaces an image when the endpoint cannot see images. */
export const IMAGE_OMITTED_NOTE = '[image omitted: this model does not accept images]';

/** Builds the V3 prompt: system message(s) first, then the conversation in order. */
export function toLanguageModelPrompt(request: ModelRequest, options: PromptOptions): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [...toSystemMessages(request.system, options.anthropicCache)];
  for (const message of request.messages) {
    const converted = toMessage(message, options.vision);
    const previous = prompt.at(-1);
    // Results of parallel calls travel together (Gemini wants one function-response turn per call turn).
    if (converted?.role === 'tool' && previous?.role === 'tool') previous.content.push(...converted.content);
    else if (converted) prompt.push(converted);
  }
  return prompt;
}

/** Declares our tools as V3 function tools (no `execute`: every call is one step, the loop stays ours). */
export function toLanguageModelTools(
  tools: ToolDefinition[] | undefined,
): LanguageModelV3FunctionTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
  }));
}

function toSystemMessages(system: ModelRequest['system'], anthropicCache: boolean): LanguageModelV3Message[] {
  const blocks = system.filter((block) => block.text.length > 0);
  if (blocks.length === 0) return [];
  if (!anthropicCache) return [{ role: 'system', content: blocks.map((block) => block.text).join('\n\n') }];
  const lastCached = blocks.findLastIndex((block) => block.cache === true);
  return blocks.map((block, index) =>
    index === lastCached
      ? {
          role: 'system',
          content: block.text,
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        }
      : { role: 'system', content: block.text },
  );
}

function toMessage(message: ChatMessage, vision: boolean): LanguageModelV3Message | undefined {
  switch (message.role) {
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', content: [text(message.content)] };
      const content = message.content.map((part): LanguageModelV3TextPart | LanguageModelV3FilePart =>
        part.type === 'text'
          ? text(part.text)
          : vision
            ? { type: 'file', data: part.data, mediaType: part.mediaType }
            : text(IMAGE_OMITTED_NOTE),
      );
      return content.length > 0 ? { role: 'user', content } : undefined;
    }
    case 'assistant': {
      const content: Array<LanguageModelV3TextPart | LanguageModelV3ToolCallPart> = [];
      if (message.content) content.push(text(message.content));
      for (const call of message.toolCalls ?? []) {
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: parseArguments(call.arguments),
        });
      }
      return content.length > 0 ? { role: 'assistant', content } : undefined;
    }
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId,
            toolName: message.toolName,
            output: message.isError
              ? { type: 'error-text', value: message.content }
              : { type: 'text', value: message.content },
          },
        ],
      };
  }
}

/**
 * Tool-call parts carry a JSON object; providers re-serialise it. Arguments the model produced that are not
 * a JSON object (truncated or malformed output), or nest too deep, are replayed as `{}`: the tool result
 * already told the model.
 */
const MAX_REPLAYED_ARGUMENT_CHARS = 512 * 1024;

function parseArguments(raw: string): JSONObject {
  // The loop refused such arguments without parsing them; a 200,000-deep object would overflow the stack
  // of every JSON.stringify the SDK does, and huge ones would fill the window.
  if (raw.length > MAX_REPLAYED_ARGUMENT_CHARS || nestsDeeperThan(raw, 64)) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JSONObject) : {};
  } catch {
    return {};
  }
}

function text(value: string): LanguageModelV3TextPart {
  return { type: 'text', text: value };
}
