import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { MemoRepository } from '../store/memo-repository.js';
import { createMemoService, MAX_MEMO_CHARS, tagsOf, withTags } from './memo-service.js';

const harness = routeHarness();

function setup() {
  const { db } = harness.database('wren-memoservice-');
  let now = Date.parse('2026-04-01T09:00:00Z');
  const store = new MemoRepository(db, () => now++);
  return { store, memos: createMemoService({ memos: store }) };
}

describe('memo service', () => {
  it('saves a trimmed memo with its tags appended as #words, once each', () => {
    const { memos } = setup();
    const saved = memos.add({ text: '  Door code #Home 4711 ', tags: ['home', 'codes', 'codes'] });
    expect(saved).toMatchObject({ ok: true, memo: { id: 1, text: 'Door code #Home 4711 #codes' } });
    expect(saved.ok && tagsOf(saved.memo.text)).toEqual(['Home', 'codes']);
    expect(withTags('', ['a'])).toBe('#a');
  });

  it.each([
    ['an empty text', { text: '' }, 'text'],
    ['a blank text', { text: ' \n\t ' }, 'text'],
    ['a text over the cap', { text: 'x'.repeat(MAX_MEMO_CHARS + 1) }, 'text'],
    ['a tag with a space', { text: 'x', tags: ['two words'] }, 'tags'],
    ['a tag with a #', { text: 'x', tags: ['#home'] }, 'tags'],
    ['an empty tag', { text: 'x', tags: [''] }, 'tags'],
    ['a tag over 40 characters', { text: 'x', tags: ['t'.repeat(41)] }, 'tags'],
    ['over 20 tags', { text: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
  ])('refuses %s as invalid and stores nothing', (_name, input, field) => {
    const { memos, store } = setup();
    const answer = memos.add(input);
    expect(answer).toMatchObject({ ok: false, code: 'invalid', field });
    expect(answer.ok || answer.error).toBeTruthy();
    expect(store.count()).toBe(0);
  });

  it('refuses a text that only its tags push over the cap as too large', () => {
    const { memos, store } = setup();
    const text = 'x'.repeat(MAX_MEMO_CHARS - 3);
    expect(memos.add({ text })).toMatchObject({ ok: true });
    expect(memos.add({ text, tags: ['long'] })).toMatchObject({ ok: false, code: 'too_large' });
    expect(store.count()).toBe(1);
  });

  it('updates the text or adds tags, checking everything before it writes', () => {
    const { memos, store } = setup();
    memos.add({ text: 'Ana likes tulips' });
    expect(memos.update(1, { text: 'Ana likes peonies', tags: ['family'] })).toMatchObject({
      ok: true,
      memo: { text: 'Ana likes peonies #family' },
    });
    const before = store.get(1)!;
    // A change leaving the text as it is writes nothing (the time stays).
    expect(memos.update(1, { tags: ['Family'] })).toEqual({ ok: true, memo: before });
    expect(memos.update(1, { text: '  ' })).toMatchObject({ ok: false, code: 'invalid', field: 'text' });
    expect(memos.update(1, { text: 'changed?', tags: ['bad tag'] })).toMatchObject({
      ok: false,
      code: 'invalid',
    });
    expect(memos.update(1, { tags: ['x'.repeat(40)], text: 'y'.repeat(MAX_MEMO_CHARS - 10) })).toMatchObject({
      ok: false,
      code: 'too_large',
    });
    expect(store.get(1)).toEqual(before);
  });

  it('answers not_found for an unknown id, after checking the input', () => {
    const { memos } = setup();
    expect(memos.update(9, { text: 'x' })).toEqual({
      ok: false,
      code: 'not_found',
      error: 'There is no memo #9.',
    });
    expect(memos.update(9, { text: '' })).toMatchObject({ code: 'invalid' });
    expect(memos.delete(9)).toMatchObject({ ok: false, code: 'not_found' });
    memos.add({ text: 'keep' });
    expect(memos.delete(1)).toEqual({ ok: true });
    expect(memos.delete(1)).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('lists newest first and searches by words', () => {
    const { memos } = setup();
    memos.add({ text: 'Fridge code is 1234', tags: ['home'] });
    memos.add({ text: 'Buy bread' });
    expect(memos.list().map((memo) => memo.id)).toEqual([2, 1]);
    expect(memos.count()).toBe(2);
    expect(memos.search('home').map((memo) => memo.id)).toEqual([1]);
    expect(memos.search('"(').length).toBe(0);
    expect(memos.get(2)?.text).toBe('Buy bread');
  });
});
