import { wren } from './wren-command.js';

/** What to tell a user who has no model at all (`command`: how their shell runs this CLI). */
export function noModelHelp(home: string, command = wren()): string {
  return [
    'No model is configured, and no local model server answered on 127.0.0.1',
    '(Ollama :11434, LM Studio :1234, llama.cpp :8080, vLLM :8000).',
    'Add one:',
    `  • run \`${command} onboard\` (it asks a few questions and tests the model before saving), or`,
    `  • add to ${home}/config.yaml:`,
    '      models:',
    '        - name: main',
    '          provider: openai        # or anthropic, gemini, deepseek, openrouter, groq, mistral, ollama …',
    '          model: gpt-4o-mini',
    `    and put OPENAI_API_KEY=… in ${home}/.env`,
  ].join('\n');
}
