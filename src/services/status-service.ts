import type { ConsolidationStatus } from '../store/consolidation-status-repository.js';
import type { EmbeddingCounts } from '../store/embedding-repository.js';
import type { Stores } from '../store/open-stores.js';
import type { ProactiveSummary } from '../store/proactive-summary.js';
import type { DatabaseSizeReport } from '../store/retention-repository.js';
import type { UsageQuery, UsageTotals } from '../store/usage-repository.js';
import type { ServiceContext } from './service-context.js';

export type { ConsolidationStatus, DatabaseSizeReport, EmbeddingCounts, ProactiveSummary, UsageTotals };

/** Read-only figures of the whole home, as `wren status` and `GET /api/status` show them. */
export interface StatusService {
  sessionCount(): number;
  /** Token usage since `query.since` (Unix ms), or all of it. */
  usage(query?: UsageQuery): UsageTotals;
  consolidation(): ConsolidationStatus;
  proactive(): ProactiveSummary;
  /** How many messages have a vector of embedding model `model`, and how many wait for one. */
  embeddings(model: string): EmbeddingCounts;
  /** The database file's size, its free pages and the bytes each table takes, largest first. */
  database(): DatabaseSizeReport;
}

export function createStatusService(
  stores: Pick<Stores, 'status' | 'usage' | 'embeddings' | 'retention'>,
  _context: ServiceContext,
): StatusService {
  return {
    sessionCount: () => stores.status.sessionCount(),
    usage: (query) => stores.usage.totals(query),
    consolidation: () => stores.status.consolidation(),
    proactive: () => stores.status.proactive(),
    embeddings: (model) => stores.embeddings.counts(model),
    database: () => stores.retention.sizeReport(),
  };
}
