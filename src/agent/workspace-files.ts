import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Markdown files the owner edits to shape Wren, with the content a new workspace starts with. */
/**
 * What a new workspace's HEARTBEAT.md starts with: how it works, examples inside a comment, and no active
 * item — so a fresh home runs no heartbeat and spends nothing until the owner writes a check.
 */
export const HEARTBEAT_STARTER = `# Heartbeat

Standing checks Wren runs on its own every \`proactive.heartbeat_minutes\` (default 30) while this file has
at least one active item. Wren checks them with its tools and tells you only when something needs you;
otherwise the check stays in the feed. It waits out your quiet hours.

Write one check per list item. Checked items and anything inside the comment below are ignored.

<!--
Examples (move one out of this comment to turn the heartbeat on):
- If an email from my manager waits for an answer, tell me.
- [ ] Tell me when https://status.example.com reports an outage.
-->
`;

export const WORKSPACE_DEFAULTS: Record<string, string> = {
  'HEARTBEAT.md': HEARTBEAT_STARTER,
  'SOUL.md': `# Soul

You are Wren, a personal assistant running on your owner's own machine.
Be direct, warm and brief. Answer in the language the owner writes in.
Say plainly when you do not know something or when a tool failed; never invent results.
`,
  'AGENTS.md': `# Standing instructions

- Prefer doing over describing: when a tool can answer, use it.
- Keep answers short unless asked for detail; use Markdown lists for steps.
- Before anything irreversible, say what you are about to do.
`,
  'USER.md': `# About the owner

(Write here what Wren should know about you: name, time zone, work, preferences.)
`,
  'MEMORY.md': `# Memory

Durable facts Wren has learned about you and your world, one per line. Edit freely: Wren re-reads this file.
`,
};

/** Creates any missing default workspace file; never overwrites one the owner has. Idempotent. */
export function ensureWorkspaceFiles(workspace: string): void {
  mkdirSync(workspace, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(WORKSPACE_DEFAULTS)) {
    const path = join(workspace, name);
    if (!existsSync(path)) writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
  }
}

/**
 * Reads workspace files, re-reading one only when its mtime, ctime, size or inode changed (a hand edit or an
 * atomic replace by Wren both change at least one).
 */
export class WorkspaceFileCache {
  private readonly cache = new Map<string, { stamp: string; text: string }>();

  constructor(
    private readonly workspace: string,
    /** Told a file's text each time it is read afresh (not when the cache answers). */
    private readonly onRead?: (name: string, text: string) => void,
  ) {}

  /** The observer's failure never costs the prompt its file. */
  private tell(name: string, text: string): void {
    try {
      this.onRead?.(name, text);
    } catch {
      // best effort: file history misses this read; the next change is observed again
    }
  }

  /** The file's text, or '' when it does not exist or cannot be read. */
  read(name: string): string {
    const path = join(this.workspace, name);
    try {
      const stat = statSync(path);
      const stamp = `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
      const cached = this.cache.get(name);
      if (cached && cached.stamp === stamp) return cached.text;
      const text = readFileSync(path, 'utf8');
      this.cache.set(name, { stamp, text });
      this.tell(name, text);
      return text;
    } catch {
      this.cache.delete(name);
      return '';
    }
  }
}
