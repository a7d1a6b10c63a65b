import { useEffect, useState } from 'preact/hooks';
import { listMcp, setMcpEnabled } from '../../api';
import { Empty, ErrorNote, Loading } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText, toast } from '../../state';
import type { McpServer } from '../../types';
import { McpServerRow } from './mcp-server-row';

export function McpSection() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const load = () =>
    listMcp().then(
      (answer) => {
        setServers(answer.servers);
        setFileError(answer.fileError ?? null);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const toggle = async (server: McpServer) => {
    setBusy(server.name);
    try {
      const answer = await setMcpEnabled(server.name, !server.enabled);
      if (answer.note) toast(answer.note);
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    } finally {
      setBusy(null);
    }
  };

  return (
    <section class="section" aria-labelledby="mcp-title">
      <h2 id="mcp-title">MCP servers</h2>
      <ErrorNote message={error} onRetry={load} />
      <ErrorNote message={fileError} />
      {servers === null && !error ? <Loading /> : null}
      {servers?.length === 0 ? (
        <Empty title="No MCP servers">
          Add tool servers in mcp.json (see <code>wren mcp --help</code>).
        </Empty>
      ) : null}
      {servers?.length ? (
        <ul class="rows">
          {servers.map((server) => (
            <McpServerRow
              key={server.name}
              server={server}
              busy={busy === server.name}
              onToggle={() => toggle(server)}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
