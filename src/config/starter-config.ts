/**
 * The commented `config.yaml` a new home starts with. It is valid as is (no models yet) and explains how to
 * add one; `config-writer` edits it through the YAML Document API, so these comments survive.
 */
export const STARTER_CONFIG = `# Wren configuration. Edits take effect while Wren runs; an invalid edit is reported and ignored.
# Any value may use \${VAR} or \${VAR:-default}: VAR comes from the environment or from .env next to this
# file (the environment wins). Keep secrets in .env (chmod 600), never in this file.

# The models Wren may use. The easiest way is a provider preset, which fills protocol, base_url, the API
# key variable and the context window:
#
#   - name: deepseek
#     provider: deepseek          # reads DEEPSEEK_API_KEY from the environment or .env
#     model: deepseek-chat
#
# Any other server: give protocol (openai | anthropic | gemini) and base_url yourself:
#
#   - name: local
#     protocol: openai
#     base_url: http://127.0.0.1:11434/v1
#     model: llama3.1
#     context_window: 8192
#     tags: [default, small]      # requests pick models by tag; lower priority is tried first
#     priority: 0
#
# Or run \`wren onboard\`, which adds the entry and stores the key in .env for you.
models: []

# workspace: ~/wren-workspace     # where tools read and write; default: the workspace folder next to this file

gateway:
  host: 127.0.0.1                 # loopback only; set a token before listening on another address
  port: 7777
  # token: \${WREN_GATEWAY_TOKEN}

agent:
  max_rounds: 40                  # tool rounds per reply at most
  max_concurrency: 4              # conversations answered at once
  # timezone: Europe/Berlin       # IANA name; the system's by default

log:
  level: info                     # trace | debug | info | warn | error
  max_size_mb: 10                 # logs/wren.log rotates past this size
  keep: 5                         # rotated files kept (wren.log.1 … wren.log.5)

# backup:
#   every: 1d                     # scheduled backups of the home (no secrets); off unless set
#   keep: 7                       # archives kept
#   to: backups                   # folder, relative to the home

# retention:                      # days old rows are kept (0 = forever); tasks, memos, goals, memory never pruned
#   messages_days: 365
#   outbox_days: 90
#   audit_days: 90
#   feed_days: 90
#   exec_log_days: 30
`;
