import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { nestsDeeperThan } from '../llm/json-depth.js';
import type { JsonSchema } from '../llm/types.js';

export { nestsDeeperThan } from '../llm/json-depth.js';

export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** Raw argument text longer than this is refused before it is parsed. */
export const MAX_ARGUMENT_CHARS = 512 * 1024;
/** Arrays and objects nested deeper than this are refused before parsing (recursive code downstream). */
export const MAX_ARGUMENT_DEPTH = 64;

const options = { strict: false, allErrors: true, coerceTypes: false, useDefaults: true } as const;
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Compiles once per schema object, with the validator for the draft the schema declares (2020-12 or older). */
function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
    let ajv: Ajv;
    if (declared.includes('2020-12')) {
      draft2020 ??= new Ajv2020(options);
      ajv = draft2020;
    } else {
      draft7 ??= new Ajv(options);
      ajv = draft7;
    }
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : 'arguments';
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown property "${String(error.params['additionalProperty'])}"`;
  }
  if (error.keyword === 'enum') {
    return `${where}: must be one of ${JSON.stringify(error.params['allowedValues'])}`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/**
 * Parses and validates a tool call's raw argument text against the tool's JSON Schema. Never throws: every
 * failure is a message written for the model so it can correct the call. Defaults from the schema are applied.
 */
export function validateArguments(toolName: string, raw: string, schema: JsonSchema): ArgumentCheck {
  if (raw.length > MAX_ARGUMENT_CHARS) {
    return {
      ok: false,
      error: `Arguments for ${toolName} are ${raw.length} characters; the limit is ${MAX_ARGUMENT_CHARS}. Send smaller arguments.`,
    };
  }
  if (nestsDeeperThan(raw, MAX_ARGUMENT_DEPTH)) {
    return {
      ok: false,
      error: `Arguments for ${toolName} nest arrays or objects more than ${MAX_ARGUMENT_DEPTH} levels deep. Send flatter arguments.`,
    };
  }
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      error: `Arguments for ${toolName} are not valid JSON (${(error as Error).message}). Send a JSON object.`,
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: `Arguments for ${toolName} must be a JSON object.` };
  }
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return {
      ok: false,
      error: `The ${toolName} tool has an invalid argument schema (${(error as Error).message}); it cannot be called.`,
    };
  }
  if (!validate(parsed)) {
    const problems = (validate.errors ?? []).map(describe).join('; ');
    return { ok: false, error: `Invalid arguments for ${toolName}: ${problems}.` };
  }
  return { ok: true, args: parsed as Record<string, unknown> };
}
