import type { Database } from 'better-sqlite3';

export type TaskPriority = 'low' | 'normal' | 'high';
export type TaskStatus = 'open' | 'done';

export interface Task {
  id: number;
  title: string;
  notes: string;
  /** Local `YYYY-MM-DD` or `YYYY-MM-DD HH:MM`, when set. */
  due?: string;
  priority: TaskPriority;
  status: TaskStatus;
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
}

export interface TaskFields {
  title?: string;
  notes?: string;
  /** `null` clears the due date. Stored as given: the task service normalises it. */
  due?: string | null;
  priority?: TaskPriority;
}

interface TaskRow {
  id: number;
  title: string;
  notes: string;
  due: string | null;
  priority: TaskPriority;
  status: TaskStatus;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

const toTask = (row: TaskRow): Task => ({
  id: row.id,
  title: row.title,
  notes: row.notes,
  ...(row.due !== null ? { due: row.due } : {}),
  priority: row.priority,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.completed_at !== null ? { completedAt: row.completed_at } : {}),
});

/** Soonest due first (undated last), then high before normal before low. */
const OPEN_ORDER = `due IS NULL, due, CASE priority WHEN 'high' THEN 0 WHEN 'normal' THEN 1 ELSE 2 END, id`;

/** To-dos (`task` tool, `wren task`), schema v2 `tasks`. Open tasks sort by due date, then priority. */
export class TaskRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** @throws Error when the title is empty. */
  create(fields: TaskFields & { title: string }): Task {
    const title = fields.title.trim();
    if (!title) throw new Error('A task needs a title.');
    const at = this.now();
    const info = this.db
      .prepare(
        'INSERT INTO tasks (title, notes, due, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(title, fields.notes?.trim() ?? '', fields.due ?? null, fields.priority ?? 'normal', at, at);
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Task | undefined {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
    return row ? toTask(row) : undefined;
  }

  /** Open tasks by due date then priority; done ones most recently completed first. */
  list(status: TaskStatus | 'all' = 'open', limit = 50): Task[] {
    const where = status === 'all' ? '' : 'WHERE status = @status';
    const order =
      status === 'done' ? 'ORDER BY completed_at DESC, id DESC' : `ORDER BY status = 'done', ${OPEN_ORDER}`;
    return (
      this.db
        .prepare(`SELECT * FROM tasks ${where} ${order} LIMIT @limit`)
        .all({ status, limit: Math.max(1, limit) }) as TaskRow[]
    ).map(toTask);
  }

  countOpen(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'open'").get() as { n: number })
      .n;
  }

  /** Changes the given fields. @returns the task, or undefined when there is none with `id`. */
  update(id: number, fields: TaskFields): Task | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    if (fields.title !== undefined && !fields.title.trim()) throw new Error('A task needs a title.');
    this.db
      .prepare('UPDATE tasks SET title = ?, notes = ?, due = ?, priority = ?, updated_at = ? WHERE id = ?')
      .run(
        fields.title?.trim() ?? current.title,
        fields.notes !== undefined ? fields.notes.trim() : current.notes,
        fields.due === undefined ? (current.due ?? null) : fields.due,
        fields.priority ?? current.priority,
        this.now(),
        id,
      );
    return this.get(id);
  }

  /** Marks a task done (idempotent). @returns the task, or undefined when there is none. */
  complete(id: number): Task | undefined {
    const at = this.now();
    this.db
      .prepare(
        "UPDATE tasks SET status = 'done', completed_at = coalesce(completed_at, ?), updated_at = ? WHERE id = ?",
      )
      .run(at, at, id);
    return this.get(id);
  }

  /** Marks a done task open again (idempotent). @returns the task, or undefined when there is none. */
  reopen(id: number): Task | undefined {
    this.db
      .prepare(
        "UPDATE tasks SET status = 'open', completed_at = NULL, updated_at = ? WHERE id = ? AND status = 'done'",
      )
      .run(this.now(), id);
    return this.get(id);
  }

  /** @returns whether a task was deleted. */
  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM tasks WHERE id = ?').run(id).changes > 0;
  }
}
