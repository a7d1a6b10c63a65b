import { InvalidArgumentError } from 'commander';

/**
 * Parses a command-line number that must be a whole number in [min, max]; commander reports the thrown
 * InvalidArgumentError as a usage error (`--port abc` → "must be a whole number from 0 to 65535").
 */
export function wholeNumber(text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}, not "${text}".`);
  }
  return Number(text);
}
