import { Badge, stateTone } from '../../components/common';
import type { McpServer } from '../../types';

function toolName(tool: McpServer['tools'][number]): { name: string; description?: string } {
  return typeof tool === 'string' ? { name: tool } : tool;
}

/** One MCP server: its state, why it is not running, its tools (folded) and an Enable/Disable button. */
export function McpServerRow({
  server,
  busy,
  onToggle,
}: {
  server: McpServer;
  busy: boolean;
  onToggle: () => void;
}) {
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">{server.name}</div>
        <div class="row-meta">
          <Badge tone={stateTone(server.state)}>{server.state}</Badge>
          <span>{server.tools.length} tools</span>
        </div>
        {(server.error ?? server.reason) ? (
          <p class="row-notes error-text">{server.error ?? server.reason}</p>
        ) : null}
        {server.tools.length ? (
          <details class="tool-list">
            <summary>Tools</summary>
            <ul>
              {server.tools.map((tool) => {
                const { name, description } = toolName(tool);
                return (
                  <li key={name}>
                    <code>{name}</code>
                    {description ? <span class="muted"> — {description}</span> : null}
                  </li>
                );
              })}
            </ul>
          </details>
        ) : null}
      </div>
      <button
        type="button"
        class="btn small"
        disabled={busy}
        aria-label={`${server.enabled ? 'Disable' : 'Enable'} ${server.name}`}
        onClick={onToggle}
      >
        {server.enabled ? 'Disable' : 'Enable'}
      </button>
    </li>
  );
}
