/** The JSON body of every API error: `{error: {code, message}}`, the message written for a person. */
export function problem(code: string, message: string) {
  return { error: { code, message } };
}
