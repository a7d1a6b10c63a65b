/**
 * The request checks the real Gemini API makes before it generates anything, so a client that builds a
 * request Gemini would refuse fails against the fake too: conversation shape, function-call/response
 * pairing, function names, the OpenAPI subset allowed in `parameters`, and Gemini 3's thought signatures.
 * Each problem is reported as the 400 INVALID_ARGUMENT message Gemini gives (shortened).
 */

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** Fields of Gemini's `Schema` (a subset of OpenAPI 3.0); anything else is an "Unknown name" error. */
const SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

type Content = { role?: unknown; parts?: unknown };
type Part = Record<string, unknown>;

/** Why Gemini would refuse this `generateContent` body for `model`, or undefined when it would accept it. */
export function geminiRequestProblem(body: unknown, model: string): string | undefined {
  const contents = field(body, 'contents');
  if (!Array.isArray(contents) || contents.length === 0) {
    return '* GenerateContentRequest.contents: contents is not specified';
  }
  return (
    contentsProblem(contents as Content[]) ??
    toolsProblem(field(body, 'tools')) ??
    (/^gemini-3/i.test(model) ? signatureProblem(contents as Content[]) : undefined)
  );
}

function contentsProblem(contents: Content[]): string | undefined {
  for (const [index, content] of contents.entries()) {
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') {
      return `Please use a valid role: user, model.`;
    }
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    }
    const calls = count(content, 'functionCall');
    const responses = count(content, 'functionResponse');
    const previous = contents[index - 1];
    if (calls > 0 && previous?.role !== 'user') {
      return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
    }
    if (responses > 0) {
      if (!previous || count(previous, 'functionCall') === 0) {
        return 'Please ensure that function response turn comes immediately after a function call turn.';
      }
      if (responses !== count(previous, 'functionCall')) {
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
      }
    }
  }
  return undefined;
}

function toolsProblem(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'Invalid JSON payload received. Unknown name "tools": expected a list.';
  for (const [t, tool] of tools.entries()) {
    const declarations = field(tool, 'functionDeclarations');
    if (!Array.isArray(declarations)) continue;
    for (const [d, declaration] of declarations.entries()) {
      const name = field(declaration, 'name');
      if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
        return `* GenerateContentRequest.tools[${t}].function_declarations[${d}].name: Invalid function name. Must start with a letter or an underscore, contain only a-z, A-Z, 0-9, underscores, dots, colons or dashes, with a maximum length of 64.`;
      }
      const unknown = unknownSchemaField(field(declaration, 'parameters'));
      if (unknown) {
        return `Invalid JSON payload received. Unknown name "${unknown}" at 'tools[${t}].function_declarations[${d}].parameters': Cannot find field.`;
      }
    }
  }
  return undefined;
}

/** The first field of `schema` (searched depth-first) that Gemini's Schema does not have. */
function unknownSchemaField(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_FIELDS.has(key)) return key;
    const nested =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.values(value)
        : key === 'items'
          ? [value]
          : key === 'anyOf' && Array.isArray(value)
            ? value
            : [];
    for (const child of nested) {
      const found = unknownSchemaField(child);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Gemini 3 refuses a request whose current turn (everything after the last user message with text) replays a
 * model step whose first function call has no `thoughtSignature`. The documented
 * `skip_thought_signature_validator` sentinel counts as a signature.
 */
function signatureProblem(contents: Content[]): string | undefined {
  const lastUserText = contents.findLastIndex(
    (content) => content.role === 'user' && parts(content).some((part) => typeof part.text === 'string'),
  );
  for (const [index, content] of contents.entries()) {
    if (index <= lastUserText || content.role !== 'model') continue;
    const position = parts(content).findIndex((part) => part.functionCall !== undefined);
    const first = parts(content)[position];
    if (first && !first.thoughtSignature) {
      const name = String(field(first.functionCall, 'name'));
      return `Function call is missing a thought_signature in functionCall parts (function call \`${name}\`, content ${index}, part ${position}). See https://ai.google.dev/gemini-api/docs/thought-signatures.`;
    }
  }
  return undefined;
}

function parts(content: Content): Part[] {
  return Array.isArray(content.parts)
    ? content.parts.filter((part): part is Part => typeof part === 'object' && part !== null)
    : [];
}

function count(content: Content, kind: 'functionCall' | 'functionResponse'): number {
  return parts(content).filter((part) => part[kind] !== undefined).length;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
