import type { InboundMessage } from '../bus/messages.js';
import type { SessionRecord } from './session-store.js';

/** A slash command other modules add (`/memory`, `/forget …`); it runs in the session's turn order. */
export interface RuntimeCommand {
  /** One line for /help, plain text (a Markdown code span in it is shown without its backticks). */
  description: string;
  /** Returns the text to send back. `args` is what followed the command word, trimmed. */
  run(
    args: string,
    context: { message: InboundMessage; session: SessionRecord; signal: AbortSignal },
  ): Promise<string>;
}

const BUILT_IN_HELP = [
  ['new', 'start a fresh session (the old one stays stored)'],
  ['stop', 'cancel the running reply'],
  ['help', 'this list'],
];
/** Commands a face handles itself, shown in its /help. */
const FACE_HELP: Record<string, string[][]> = {
  cli: [['exit', 'leave the chat (also Ctrl+D, or Ctrl+C twice)']],
};

/**
 * A description as plain text: /help goes out as a notice, which every face shows as written (Telegram escapes
 * it, the terminal prints it), so Markdown would show its marks — `/subagents cancel ID` with its backticks.
 */
function plainText(text: string): string {
  return text.replace(/`+([^`]+?)`+/g, '$1');
}

/**
 * The /help text: built-ins, the face's own commands, and (for the owner) the plugged commands. Plain text,
 * without Markdown, for every face.
 */
export function helpText(commands: Record<string, RuntimeCommand>, channel: string): string {
  const rows = [
    ...BUILT_IN_HELP,
    ...(FACE_HELP[channel] ?? []),
    ...Object.entries(commands).map(([name, command]) => [name, plainText(command.description)]),
  ];
  const width = Math.max(...rows.map(([name]) => name!.length)) + 2;
  return ['Commands:', ...rows.map(([name, text]) => `  /${name!.padEnd(width)}${text}`)].join('\n');
}

/** `/word args…` split into the command name (lower case) and its arguments; undefined for other text. */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  return match ? { name: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() } : undefined;
}

/**
 * The reply to a message that looks like a command nobody knows (`/remind me`, a typo of `/new`): said at
 * once, so it never reaches the model. A known command or plain text returns undefined.
 */
export function unknownCommandReply(text: string, known: ReadonlySet<string>): string | undefined {
  const command = parseCommand(text);
  if (!command || known.has(command.name)) return undefined;
  return `Unknown command /${command.name}; /help lists the commands.`;
}
