import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type CronJobDefinition, readJobsFile } from './jobs-file.js';

export interface JobsWatcherOptions {
  /** Absolute path of jobs.yaml. */
  path: string;
  /** A reload found a valid file whose jobs differ from those in force (wake the scheduler). */
  onChange?(jobs: readonly CronJobDefinition[]): void;
  /**
   * A reload found the file invalid (the last good jobs stay in force), reported once until the problem
   * changes or is fixed; or watching failed.
   */
  onError?(error: Error): void;
  /** A reload found the file valid again after an error (clears a shown error). */
  onValid?(): void;
  /** Quiet period after the last file event before `watch()` reloads; default 300 ms. */
  debounceMs?: number;
}

/** What identifies one version of the file on disk (an atomic replace changes the inode, an edit the rest). */
function stampOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return `unreadable:${(error as Error).message}`;
  }
}

/**
 * The cron jobs in force, kept in step with jobs.yaml. `current()` costs one stat while the file is
 * unchanged and re-reads it when it changed (so any edit — by hand, by the `cron` tool, by another
 * process — applies at the next scheduler tick); `watch()` additionally reloads on file events so an edit
 * applies at once. An invalid edit keeps the last good jobs and is reported through `onError`; until
 * the file has been valid once, there are no jobs in force (`current()` is undefined), so a broken file at
 * start never looks like "every job was removed".
 */
export class JobsWatcher {
  private jobs: readonly CronJobDefinition[] | undefined;
  private snapshot = '';
  private stamp: string | undefined;
  private failing: Error | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: JobsWatcherOptions) {}

  /** The jobs in force (the same array until they change); undefined while the file was never valid. */
  current(): readonly CronJobDefinition[] | undefined {
    this.refresh(false);
    return this.jobs;
  }

  /** Why the file on disk is not in force, when it is invalid. */
  error(): Error | undefined {
    this.refresh(false);
    return this.failing;
  }

  /** Re-reads the file now (after a write by this process, or a file event), changed stamp or not. */
  reload(): void {
    this.refresh(true);
  }

  /**
   * Watches the file's folder (editors save by renaming over the file, which a watch on the file would
   * miss) and reloads after each burst of events. Does not keep the process alive. Idempotent.
   * @throws the file-system error when the folder cannot be watched.
   */
  watch(): void {
    if (this.watcher) return;
    const name = basename(this.options.path);
    this.watcher = watch(dirname(this.options.path), { persistent: false }, (_event, filename) => {
      if (filename && filename.toString() !== name) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload(), this.options.debounceMs ?? 300);
      this.timer.unref();
    });
    this.watcher.on('error', (error) => this.options.onError?.(error));
  }

  /** Stops watching. Idempotent. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  private refresh(force: boolean): void {
    const stamp = stampOf(this.options.path);
    if (!force && stamp === this.stamp) return;
    const initial = this.stamp === undefined;
    this.stamp = stamp;
    let next: CronJobDefinition[];
    try {
      next = readJobsFile(this.options.path);
    } catch (error) {
      const failed = error as Error;
      if (this.failing?.message !== failed.message) this.options.onError?.(failed);
      this.failing = failed;
      return;
    }
    if (this.failing) {
      this.failing = undefined;
      this.options.onValid?.();
    }
    const text = JSON.stringify(next);
    if (this.jobs && text === this.snapshot) return;
    this.jobs = Object.freeze(next);
    this.snapshot = text;
    if (!initial) this.options.onChange?.(this.jobs);
  }
}
