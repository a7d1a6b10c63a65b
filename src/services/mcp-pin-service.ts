import type { McpPinStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

/**
 * The owner's side of MCP tool pinning: which servers are held (their tool definitions changed since they
 * were approved), what changed, approving the change, forgetting a server's pin.
 */
export type McpPinService = Pick<McpPinStore, 'heldServers' | 'pending' | 'approve' | 'forget'>;

export function createMcpPinService(
  stores: Pick<Stores, 'mcpPins'>,
  _context: ServiceContext,
): McpPinService {
  return stores.mcpPins;
}
