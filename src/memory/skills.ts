import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { BUILT_IN_SKILLS } from './skills/built-in-skills.js';

/** One skill folder, as found on disk. */
export interface Skill {
  name: string;
  description: string;
  /** Injected into every prompt in full (when available). */
  always: boolean;
  /** The Markdown after the front-matter. */
  body: string;
  /** Missing requirements or front-matter problems; empty when the skill is usable. */
  problems: string[];
}

const frontMatterSchema = z.object({
  name: z.string().trim().min(1).optional(),
  description: z.string().trim().min(1),
  always: z.boolean().default(false),
  requires: z
    .object({
      bins: z.array(z.string().min(1)).default([]),
      env: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
});

/** Characters of one always-on skill in the prompt, and of the whole skills section. */
const ALWAYS_CHARS = 4000;
const INDEX_CHARS = 6000;

function capBody(body: string): string {
  return body.length > ALWAYS_CHARS ? `${body.slice(0, ALWAYS_CHARS)}\n[skill truncated]` : body;
}

function onPath(bin: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

/** Parses one SKILL.md; a broken one comes back with a problem instead of throwing. */
export function parseSkill(folder: string, text: string, env: NodeJS.ProcessEnv = process.env): Skill {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  const broken = (problem: string): Skill => ({
    name: folder,
    description: '',
    always: false,
    body: text,
    problems: [problem],
  });
  if (!match) return broken('SKILL.md has no front-matter (--- name/description ---)');
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    return broken(`front-matter is not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
  const parsed = frontMatterSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return broken(`front-matter ${issue.path.join('.') || 'value'}: ${issue.message}`);
  }
  const { requires } = parsed.data;
  const problems = [
    ...requires.bins.filter((bin) => !onPath(bin, env)).map((bin) => `needs the \`${bin}\` program on PATH`),
    ...requires.env.filter((name) => !env[name]).map((name) => `needs the ${name} environment variable`),
  ];
  return {
    name: parsed.data.name ?? folder,
    description: parsed.data.description.replace(/\s+/g, ' '),
    always: parsed.data.always,
    body: match[2]!.trim(),
    problems,
  };
}

/**
 * The skills in `workspace/skills/<name>/SKILL.md`, re-read only when a skill folder or file changes (one
 * readdir and one stat per skill per call).
 */
export class SkillLibrary {
  private cache: { stamp: string; skills: Skill[] } | undefined;

  constructor(
    private readonly workspace: () => string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** Told each SKILL.md's workspace path and text when the library re-reads them (file history). */
    private readonly onRead?: (path: string, text: string) => void,
  ) {}

  /** Skills sorted by name; [] when there is no skills folder. */
  list(): Skill[] {
    const dir = join(this.workspace(), 'skills');
    let folders: string[];
    try {
      folders = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort();
    } catch {
      return [];
    }
    const files = folders.map((folder) => {
      const path = join(dir, folder, 'SKILL.md');
      try {
        const stat = statSync(path);
        return { folder, path, stamp: `${folder}:${stat.mtimeMs}:${stat.size}` };
      } catch {
        return undefined;
      }
    });
    const present = files.filter((file) => file !== undefined);
    const stamp = `${dir}|${present.map((file) => file.stamp).join('|')}|${this.env['PATH'] ?? ''}`;
    if (this.cache?.stamp === stamp) return this.cache.skills;
    const skills = present.map((file) => {
      const text = readFileSync(file.path, 'utf8');
      try {
        this.onRead?.(`skills/${file.folder}/SKILL.md`, text);
      } catch {
        // best effort: history misses this read, the skill still loads
      }
      return parseSkill(file.folder, text, this.env);
    });
    this.cache = { stamp, skills };
    return skills;
  }

  /** A skill by name (case-insensitive), or undefined. */
  get(name: string): Skill | undefined {
    const wanted = name.trim().toLowerCase();
    return this.list().find((skill) => skill.name.toLowerCase() === wanted);
  }

  /**
   * The skills a non-owner's prompt carries: each usable skill named in `names` (case-insensitive), in full
   * (capped). '' when none is named or found. Guests cannot load skills themselves (read_skill is the owner's).
   */
  guestSection(names: readonly string[]): string {
    if (names.length === 0) return '';
    const wanted = new Set(names.map((name) => name.toLowerCase()));
    return this.list()
      .filter((skill) => wanted.has(skill.name.toLowerCase()) && skill.problems.length === 0)
      .map((skill) => `\n\n<skill name="${skill.name}">\n${capBody(skill.body)}\n</skill>`)
      .join('');
  }

  /**
   * The skills part of the system prompt: usable always-on skills in full, the others one line each, the
   * unusable ones with the reason. '' when there are no skills. Stable while the files do not change.
   */
  promptSection(): string {
    const skills = this.list();
    if (skills.length === 0) return '';
    const lines = skills.map((skill) =>
      skill.problems.length
        ? `- ${skill.name} (unavailable: ${skill.problems.join('; ')})`
        : `- ${skill.name}: ${skill.description}${skill.always ? ' (always on, below)' : ''}`,
    );
    let index = lines.join('\n');
    if (index.length > INDEX_CHARS) index = `${index.slice(0, INDEX_CHARS)}\n[skills list truncated]`;
    const always = skills
      .filter((skill) => skill.always && skill.problems.length === 0)
      .map((skill) => `\n<skill name="${skill.name}">\n${capBody(skill.body)}\n</skill>`)
      .join('');
    return `\n\n<skills>\nSkills are instructions for specific jobs. When a request matches one, load it with the read_skill tool and follow it.\n${index}\n</skills>${always}`;
  }
}

const MANIFEST = '.built-in-skills.json';

/**
 * Copies each built-in skill into `workspace/skills/<name>/SKILL.md` the first time this workspace sees it.
 * A skill the owner deleted or edited is left alone (a manifest records what was installed). Idempotent.
 * @returns the names installed now.
 */
export function installBuiltInSkills(workspace: string): string[] {
  const dir = join(workspace, 'skills');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const manifestPath = join(dir, MANIFEST);
  let installed: string[] = [];
  try {
    installed = JSON.parse(readFileSync(manifestPath, 'utf8')) as string[];
  } catch {}
  const added: string[] = [];
  const known = installed.length;
  for (const [name, text] of Object.entries(BUILT_IN_SKILLS)) {
    if (installed.includes(name)) continue;
    const folder = join(dir, name);
    if (!existsSync(join(folder, 'SKILL.md'))) {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(join(folder, 'SKILL.md'), text, { mode: 0o600, flag: 'wx' });
      added.push(name);
    }
    installed.push(name);
  }
  if (installed.length !== known) writeFileAtomic(manifestPath, `${JSON.stringify(installed)}\n`);
  return added;
}
