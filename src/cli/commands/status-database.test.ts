import { describe, expect, it } from 'vitest';
import { databaseLine, databaseSummary, formatBytes } from './status.js';

describe('wren status: the database line', () => {
  it('names the size on disk, the largest tables, the write-ahead log and the free space', () => {
    const summary = databaseSummary({
      fileBytes: 13 * 1024 * 1024,
      walBytes: 1024 * 1024,
      pageSize: 4096,
      pageCount: 3072,
      freePages: 256,
      tables: [
        { name: 'messages', bytes: 8 * 1024 * 1024 },
        { name: 'message_search', bytes: 3 * 1024 * 1024 },
        { name: 'audit_log', bytes: 512 * 1024 },
        { name: 'feed', bytes: 100 * 1024 },
        { name: 'tasks', bytes: 4096 },
      ],
    });
    expect(summary.largest.map((table) => table.name)).toEqual([
      'messages',
      'message_search',
      'audit_log',
      'feed',
    ]);
    expect(databaseLine(summary)).toBe(
      '13.0 MB on disk: messages 8.0 MB, message_search 3.0 MB, audit_log 512.0 KB, feed 100.0 KB; 1.0 MB write-ahead log; 1.0 MB free',
    );
  });

  it('says only the size when SQLite could not break it down', () => {
    const summary = databaseSummary({
      fileBytes: 4096,
      walBytes: 0,
      pageSize: 4096,
      pageCount: 1,
      freePages: 0,
      tables: [],
    });
    expect(databaseLine(summary)).toBe('4.0 KB on disk');
  });

  it('formats bytes in powers of 1024', () => {
    expect([0, 1023, 1024, 1536, 1024 ** 3, 5 * 1024 ** 4, 2 * 1024 ** 5].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KB',
      '1.5 KB',
      '1.0 GB',
      '5.0 TB',
      '2048.0 TB',
    ]);
  });
});
