import { z } from 'zod';
import type { RuntimeCommand } from '../../agent/agent-runtime.js';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { type SubagentInfo, SubagentLimitError, type SubagentManager } from './subagent-manager.js';

const parameters = z
  .object({
    task: z.string().min(1).max(8000).describe('What the subagent should do and report back, self-contained'),
    tools: z
      .array(z.string())
      .max(20)
      .optional()
      .describe('Tools it may use; a safe default set when omitted'),
  })
  .strict();

/** `spawn`: hands a self-contained task to a background subagent; its report arrives later as a message. */
export function createSpawnTool(manager: SubagentManager): Tool {
  return {
    name: 'spawn',
    description:
      'Run a self-contained task in the background with a subagent (restricted tools, own round limit). Returns at once; the report arrives as a later message in this conversation.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.subagents,
    async execute(raw, ctx) {
      const args = parameters.parse(raw);
      let info: SubagentInfo;
      try {
        info = manager.spawn(args.task, ctx, args.tools);
      } catch (error) {
        if (error instanceof SubagentLimitError) throw new ToolError(error.message);
        throw error;
      }
      return {
        content: `Started subagent ${info.id} with tools: ${info.tools.join(', ') || 'none'}. Its report will arrive as a message; tell the owner it is working on it.`,
        details: info,
      };
    },
  };
}

/** `/subagents` (list) and `/subagents cancel ID`. */
export function createSubagentsCommand(manager: SubagentManager): RuntimeCommand {
  return {
    description: 'list background subagents; `/subagents cancel ID` stops one',
    async run(args) {
      const [verb, id] = args.split(/\s+/);
      if (verb === 'cancel') {
        if (!id) return 'Usage: /subagents cancel ID';
        return manager.cancel(id) ? `Cancelling subagent ${id}.` : `No running subagent ${id}.`;
      }
      const all = manager.list();
      if (all.length === 0) return 'No subagents.';
      return all.map((info) => `${info.id}  ${info.state.padEnd(9)}  ${info.task.slice(0, 70)}`).join('\n');
    },
  };
}
