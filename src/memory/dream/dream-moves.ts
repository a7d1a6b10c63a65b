/** Dream's proposed moves, checked against the chunk the model saw; and the answer made to keep them. Pure. */
import { PROPOSAL_FILES, type ProposalFile } from '../../store/memory-proposal-repository.js';
import { normalizeFact } from '../memory-file.js';
import { type FactLine, parseMemory } from '../tidy/fact-lines.js';

/** A move the owner is asked about: `text` is the MEMORY.md line as written (never the model's words). */
export interface DreamMove {
  file: ProposalFile;
  text: string;
  key: string;
  reason: string;
}

/** Moves one answer may propose at most (the rest are ignored). */
const MAX_MOVES = 20;

const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);

/**
 * The moves of an answer that name a fact of the chunk and a file Dream may propose to, with notes on the
 * ones ignored (for the owner). The proposal carries the fact as MEMORY.md holds it, so it adds nothing.
 */
export function checkMoves(
  moves: ReadonlyArray<{ line: string; to: string; reason?: string }>,
  facts: readonly FactLine[],
): { moves: DreamMove[]; notes: string[] } {
  const out: DreamMove[] = [];
  const notes: string[] = [];
  for (const move of moves.slice(0, MAX_MOVES)) {
    const file = PROPOSAL_FILES.find((name) => name === move.to);
    if (!file) {
      notes.push(
        `ignored a move to ${quoted(move.to)}: Dream proposes moves to USER.md, AGENTS.md and SOUL.md only`,
      );
      continue;
    }
    const key = normalizeFact(move.line);
    const fact = facts.find((candidate) => candidate.key === key);
    if (!fact) {
      notes.push(`ignored a move of ${quoted(move.line)} to ${file}: MEMORY.md has no such line`);
      continue;
    }
    if (out.some((existing) => existing.key === key && existing.file === file)) continue;
    out.push({ file, text: fact.text.trim(), key, reason: (move.reason ?? '').slice(0, 300) });
  }
  return { moves: out, notes };
}

/** The answer with every moved fact it left out put back (a fact moves only when the owner accepts). */
export function keepMoved(answer: string, moves: readonly DreamMove[]): string {
  const present = new Set(parseMemory(answer).facts.map((fact) => fact.key));
  const missing = moves.filter((move) => !present.has(move.key)).map((move) => move.text);
  if (missing.length === 0) return answer;
  return `${answer.replace(/\s*$/, '')}\n${[...new Set(missing)].join('\n')}\n`;
}
