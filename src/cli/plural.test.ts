import { describe, expect, it } from 'vitest';
import { plural } from './plural.js';

describe('plural', () => {
  it('uses the singular only for exactly one', () => {
    expect(plural(1, 'delivery')).toBe('1 delivery');
    expect(plural(2, 'delivery')).toBe('2 deliveries');
    expect(plural(0, 'reminder')).toBe('0 reminders');
    expect(plural(1, 'entry')).toBe('1 entry');
    expect(plural(3, 'entry')).toBe('3 entries');
    expect(plural(-1, 'step')).toBe('-1 steps');
    expect(plural(1.5, 'second')).toBe('1.5 seconds');
    expect(plural(2, 'person', 'people')).toBe('2 people');
  });
});
