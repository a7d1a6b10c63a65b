import { describe, expect, it } from 'vitest';
import { MAX_RENDERED_CHARS, MAX_VALUE_CHARS, renderTemplate } from './render-template.js';

const github = {
  action: 'opened',
  repository: { full_name: 'octo/wren', stars: 42, private: false },
  labels: [{ name: 'bug' }, { name: 'help' }],
  sender: null,
};

describe('renderTemplate', () => {
  it('replaces dotted paths with the payload values, array indexes included', () => {
    expect(renderTemplate('{{repository.full_name}}: {{action}}', github)).toBe('octo/wren: opened');
    expect(renderTemplate('{{ repository.stars }} {{repository.private}} {{labels.1.name}}', github)).toBe(
      '42 false help',
    );
  });

  it('renders missing paths and null as nothing, objects as JSON', () => {
    expect(renderTemplate('[{{nope.deeper}}][{{sender}}][{{labels.9.name}}]', github)).toBe('[][][]');
    expect(renderTemplate('{{labels.0}}', github)).toBe('{"name":"bug"}');
    expect(renderTemplate('{{action}}', 'just a string')).toBe('');
  });

  it('never reaches inherited properties: constructor, __proto__, toString', () => {
    const out = renderTemplate(
      '{{constructor.constructor}}|{{__proto__}}|{{toString}}|{{action.constructor}}|{{labels.length}}|{{action.length}}',
      github,
    );
    expect(out).toBe('|||||');
  });

  it('treats a JSON "__proto__" key as plain data and a payload value as text, never as a template', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "title": "{{__proto__.polluted}}"}');
    expect(renderTemplate('{{__proto__.polluted}}', payload)).toBe('yes');
    expect(renderTemplate('{{title}}', payload)).toBe('{{__proto__.polluted}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('leaves what is not a plain placeholder as written: no helpers, expressions or code', () => {
    const template = '{{#each labels}}x{{/each}} {{action | upper}} {{ process.exit() }} {{{action}}} ${1+1}';
    expect(renderTemplate(template, github)).toBe(
      '{{#each labels}}x{{/each}} {{action | upper}} {{ process.exit() }} {opened} ${1+1}',
    );
  });

  it('caps a huge value and the whole text', () => {
    const huge = {
      text: 'a'.repeat(1_000_000),
      list: Array.from({ length: 100_000 }, (_, i) => `item ${i}`),
    };
    const one = renderTemplate('{{text}}', huge);
    expect(one.length).toBe(MAX_VALUE_CHARS);
    expect(one.endsWith('…')).toBe(true);
    expect(renderTemplate('{{list}}', huge).length).toBeLessThanOrEqual(MAX_VALUE_CHARS);
    const many = renderTemplate('{{text}}'.repeat(50), huge);
    expect(many.length).toBe(MAX_RENDERED_CHARS);
  });

  it('ignores paths deeper than it walks', () => {
    let deep: Record<string, unknown> = { v: 'bottom' };
    for (let i = 0; i < 30; i++) deep = { a: deep };
    expect(renderTemplate(`{{${'a.'.repeat(30)}v}}`, deep)).toBe('');
  });
});
