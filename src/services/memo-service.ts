import type { Memo } from '../store/memo-repository.js';
import type { MemoStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { Memo };
export type MemoService = MemoStore;

export function createMemoService(stores: Pick<Stores, 'memos'>, _context: ServiceContext): MemoService {
  return stores.memos;
}
