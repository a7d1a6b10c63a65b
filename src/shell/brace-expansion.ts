import { pushLiteral, tildeUser, type Word, type WordPart } from './shell-tokens.js';

/** More words than this from one brace expansion and the word counts as run-time text (bounds fan-out). */
export const MAX_BRACE_WORDS = 64;

/** One unquoted character (syntax for brace expansion) or a part that is opaque to it. */
type Atom = string | WordPart;

/**
 * The words bash makes of `word` by brace expansion (`{a,b}`, `x{1..3}`, nested), before any other
 * expansion: only unquoted characters count as braces and commas, so `"{a,b}"` and `${x}` stay as they are.
 * Each result starting with an unquoted `~` gets its tilde part (`{~/.bashrc,}` names `~/.bashrc`); empty
 * results are dropped. Undefined when the expansion would make more than {@link MAX_BRACE_WORDS} words.
 */
export function expandBraces(word: Word): Word[] | undefined {
  const candidate = word.parts.some(
    (part) => part.type === 'brace' || (part.type === 'lit' && !part.quoted && part.value.includes('{')),
  );
  if (!candidate) return [word];
  const atoms = toAtoms(word.parts);
  const expanded = expand(atoms);
  if (!expanded) return undefined;
  if (expanded.length === 1 && expanded[0] === atoms) return [word];
  return expanded.map(fromAtoms).filter((result) => result.parts.length > 0);
}

function toAtoms(parts: WordPart[]): Atom[] {
  return parts.flatMap((part): Atom[] => {
    if (part.type === 'lit' && !part.quoted) return [...part.value];
    if (part.type === 'brace') return [...part.raw];
    return [part];
  });
}

function fromAtoms(atoms: Atom[]): Word {
  const parts: WordPart[] = [];
  for (const atom of atoms) {
    if (typeof atom === 'string') pushLiteral(parts, atom, false);
    else if (atom.type === 'lit') pushLiteral(parts, atom.value, atom.quoted);
    else parts.push(atom);
  }
  const first = parts[0];
  if (first?.type === 'lit' && !first.quoted && first.value.startsWith('~')) {
    const prefix = /^~([^/]*)/.exec(first.value)![1]!;
    const user = tildeUser(prefix);
    if (user !== undefined) {
      const rest = first.value.slice(1 + prefix.length);
      parts.splice(0, 1, { type: 'tilde', user }, ...(rest ? [{ ...first, value: rest }] : []));
    }
  }
  return { parts };
}

/** The atom lists a list expands to: the first valid brace group splits it, the rest is expanded in turn. */
function expand(atoms: Atom[]): Atom[][] | undefined {
  for (let open = 0; open < atoms.length; open++) {
    if (atoms[open] !== '{') continue;
    const group = closing(atoms, open);
    if (!group) continue;
    const body = atoms.slice(open + 1, group.close);
    const alternatives = group.commas.length > 0 ? split(atoms, open, group) : sequence(body);
    if (alternatives === null) continue;
    if (alternatives === undefined) return undefined;
    const after = expand(atoms.slice(group.close + 1));
    if (!after) return undefined;
    const before = atoms.slice(0, open);
    const results: Atom[][] = [];
    for (const alternative of alternatives) {
      const inner = expand(alternative);
      if (!inner) return undefined;
      for (const middle of inner)
        for (const end of after) {
          results.push([...before, ...middle, ...end]);
          if (results.length > MAX_BRACE_WORDS) return undefined;
        }
    }
    return results;
  }
  return [atoms];
}

/** The `}` that closes the `{` at `open`, with the commas at its own level; undefined when unclosed. */
function closing(atoms: Atom[], open: number): { close: number; commas: number[] } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let index = open; index < atoms.length; index++) {
    const atom = atoms[index];
    if (atom === '{') depth++;
    else if (atom === '}' && --depth === 0) return { close: index, commas };
    else if (atom === ',' && depth === 1) commas.push(index);
  }
  return undefined;
}

function split(atoms: Atom[], open: number, group: { close: number; commas: number[] }): Atom[][] {
  const bounds = [open, ...group.commas, group.close];
  return bounds.slice(1).map((end, index) => atoms.slice(bounds[index]! + 1, end));
}

/**
 * A sequence `{1..10}`, `{a..e}`, `{01..10..2}` as its alternatives; null when the body is not one (the
 * braces stay literal), undefined when it is too long.
 */
function sequence(body: Atom[]): Atom[][] | null | undefined {
  if (body.some((atom) => typeof atom !== 'string')) return null;
  const text = body.join('');
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text);
  const match = numbers ?? letters;
  if (!match) return null;
  const from = numbers ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numbers ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  if (Math.abs(to - from) / step + 1 > MAX_BRACE_WORDS) return undefined;
  const padded = numbers !== null && [match[1]!, match[2]!].some((bound) => /^-?0\d/.test(bound));
  const width = padded ? Math.max(match[1]!.length, match[2]!.length) : 0;
  const values: Atom[][] = [];
  for (let value = from; from <= to ? value <= to : value >= to; value += from <= to ? step : -step) {
    const shown = numbers ? String(value).padStart(width, '0') : String.fromCharCode(value);
    values.push([...shown]);
  }
  return values;
}
