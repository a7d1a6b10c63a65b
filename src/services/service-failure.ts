/**
 * Why an owner action refused its input, never thrown: each face maps `code` to its own answer (HTTP
 * 400/404/413/403, a CLI exit code, a tool error) and shows `error`, written for a person. `field` names the
 * input at fault, when one is.
 */
export type ServiceFailure = {
  ok: false;
  /** `refused`: the input is fine but the thing it names may not be touched (a symlink, a conflict). */
  code: 'invalid' | 'not_found' | 'too_large' | 'refused';
  error: string;
  field?: string;
};

export const invalid = (error: string, field?: string): ServiceFailure => ({
  ok: false,
  code: 'invalid',
  error,
  ...(field ? { field } : {}),
});

export const notFound = (error: string): ServiceFailure => ({ ok: false, code: 'not_found', error });

export const tooLarge = (error: string, field?: string): ServiceFailure => ({
  ok: false,
  code: 'too_large',
  error,
  ...(field ? { field } : {}),
});

export const refused = (error: string): ServiceFailure => ({ ok: false, code: 'refused', error });
