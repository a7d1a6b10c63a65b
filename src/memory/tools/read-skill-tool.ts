import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { SkillLibrary } from '../skills.js';

const parameters = z
  .object({ name: z.string().min(1).describe('The skill name from the skills list') })
  .strict();

/** `read_skill`: loads one skill's instructions (workspace/skills/<name>/SKILL.md). Safe, on demand. */
export function createReadSkillTool(deps: { skills: SkillLibrary }): Tool {
  return {
    name: 'read_skill',
    description: 'Load the instructions of a skill listed in the system prompt, then follow them.',
    parameters: toolSchema(parameters),
    risk: 'safe',
    area: TOOL_AREAS.skills,
    async execute(raw) {
      const { name } = parameters.parse(raw);
      const skill = deps.skills.get(name);
      if (!skill) {
        const known = deps.skills.list().map((candidate) => candidate.name);
        throw new ToolError(`No skill "${name}". Skills: ${known.join(', ') || 'none installed'}.`);
      }
      if (skill.problems.length) {
        throw new ToolError(`Skill "${skill.name}" is unavailable: ${skill.problems.join('; ')}.`);
      }
      return { content: `# Skill: ${skill.name}\n${skill.body}`, details: { name: skill.name } };
    },
  };
}
