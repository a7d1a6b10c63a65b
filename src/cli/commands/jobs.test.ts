import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerJobCommands } from './jobs.js';

describe('wren jobs', () => {
  it('registers list, history and run under jobs', () => {
    const program = new Command();
    registerJobCommands(program, () => '/nowhere');
    const jobs = program.commands.find((command) => command.name() === 'jobs');
    expect(jobs?.commands.map((command) => command.name())).toEqual(['list', 'history', 'run']);
  });
});
