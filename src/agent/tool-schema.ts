import { z } from 'zod';
import type { JsonSchema } from '../llm/types.js';

/**
 * The JSON Schema a model sees for a zod argument schema: draft-07 (what every provider accepts) without the
 * `$schema` marker, which only costs tokens.
 */
export function toolSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-7',
  }) as JsonSchema;
  return rest;
}
