import type { Database } from 'better-sqlite3';
import {
  type Goal,
  type GoalDetail,
  type GoalFields,
  type GoalProposal,
  type GoalRow,
  type GoalStatus,
  type GoalStep,
  type NewGoalRecord,
  type ProposalRow,
  type ProposedStep,
  type StepFields,
  type StepRow,
  toGoal,
  toProposal,
  toStep,
} from './goal-records.js';
import type { GoalStore } from './ports.js';

export interface GoalRepositoryOptions {
  now?: () => number;
  /** The owner's IANA zone, for goals created without one. */
  timezone?: () => string;
}

/**
 * A goal nothing changed since its last pass (no step, note, proposal or edit) rests this long before the
 * next: another pass over the same unchanged goal would spend tokens to say the same thing.
 */
export const UNCHANGED_REST_MS = 24 * 60 * 60_000;

/** When an active goal may next have a pass: at once when new or changed since its last pass, else after a rest. */
const ELIGIBLE_AT = `CASE WHEN last_pass_at IS NULL OR last_touched_at > last_pass_at THEN last_touched_at
  ELSE last_pass_at + ${UNCHANGED_REST_MS} END`;

/** A change after a pass counts as newer than the pass even within the same millisecond. */
const TOUCHED = 'max(@at, coalesce(last_pass_at, 0) + 1)';

/**
 * What every tick asks, each one index range or probe (tests check the plans). The overdue goals are few:
 * their index range is read and sorted, rather than every active goal scanned in touch order.
 */
export const DUE_QUERIES = {
  overdue:
    "SELECT * FROM goals INDEXED BY goals_overdue WHERE status = 'active' AND due_date < ? ORDER BY last_touched_at, id",
  untouched: `SELECT * FROM goals WHERE status = 'active' AND ${ELIGIBLE_AT} <= ? ORDER BY last_touched_at, id LIMIT 1`,
  firstEligible: `SELECT min(${ELIGIBLE_AT}) AS eligible FROM goals WHERE status = 'active'`,
  lastPass: 'SELECT max(last_pass_at) AS last FROM goals',
  checkins:
    "SELECT * FROM goals WHERE status = 'active' AND next_checkin_at <= ? ORDER BY next_checkin_at, id LIMIT ?",
  nextCheckin: "SELECT min(next_checkin_at) AS at FROM goals WHERE status = 'active'",
} as const;

/**
 * Goals, their steps and proposals over SQLite (schema v6): persistence only. It writes what it is given
 * (the goal rules in src/proactive/goals/ check every value first) and stamps rows with its clock; a change
 * that must be atomic runs inside `transaction` (BEGIN IMMEDIATE; nested calls join the outer one).
 */
export class GoalRepository implements GoalStore {
  private readonly now: () => number;
  private readonly timezone: () => string;

  constructor(
    private readonly db: Database,
    options: GoalRepositoryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.timezone = options.timezone ?? (() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  create(goal: NewGoalRecord): GoalDetail {
    const at = this.now();
    return this.transaction(() => {
      const info = this.db
        .prepare(
          `INSERT INTO goals (title, why, status, due_date, checkin_cron, timezone, next_checkin_at,
             last_touched_at, session_id, deliver_to, created_at, updated_at)
           VALUES (?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          goal.title,
          goal.why ?? null,
          goal.dueDate ?? null,
          goal.checkinCron ?? null,
          goal.timezone ?? this.timezone(),
          goal.nextCheckinAt ?? null,
          at,
          goal.sessionId ?? null,
          JSON.stringify(goal.deliverTo ?? []),
          at,
          at,
        );
      const id = Number(info.lastInsertRowid);
      for (const [index, step] of (goal.steps ?? []).entries()) this.insertStep(id, index + 1, step, at);
      return this.get(id)!;
    });
  }

  /** `open`: active and paused goals; by status (active first), then soonest due, then oldest. */
  list(which: 'open' | 'all' | GoalStatus = 'open', limit = 100): Goal[] {
    const where =
      which === 'open' ? "status IN ('active', 'paused')" : which === 'all' ? '1' : 'status = @which';
    const rows = this.db
      .prepare(
        `SELECT * FROM goals WHERE ${where}
         ORDER BY CASE status WHEN 'active' THEN 0 WHEN 'paused' THEN 1 ELSE 2 END,
           due_date IS NULL, due_date, id LIMIT @limit`,
      )
      .all({ limit, ...(which === 'open' || which === 'all' ? {} : { which }) }) as GoalRow[];
    return rows.map(toGoal);
  }

  goal(id: number): Goal | undefined {
    const row = this.db.prepare('SELECT * FROM goals WHERE id = ?').get(id) as GoalRow | undefined;
    return row ? toGoal(row) : undefined;
  }

  get(id: number): GoalDetail | undefined {
    const goal = this.goal(id);
    if (!goal) return undefined;
    const steps = this.db
      .prepare('SELECT * FROM goal_steps WHERE goal_id = ? ORDER BY position, id')
      .all(id) as StepRow[];
    const proposals = this.db
      .prepare("SELECT * FROM goal_proposals WHERE goal_id = ? AND status = 'pending' ORDER BY id")
      .all(id) as ProposalRow[];
    return { ...goal, steps: steps.map(toStep), proposals: proposals.map(toProposal) };
  }

  change(id: number, fields: GoalFields): void {
    this.db
      .prepare(
        `UPDATE goals SET title = ?, why = ?, status = ?, due_date = ?, checkin_cron = ?, timezone = ?,
         next_checkin_at = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        fields.title,
        fields.why,
        fields.status,
        fields.dueDate,
        fields.checkinCron,
        fields.timezone,
        fields.nextCheckinAt,
        this.now(),
        id,
      );
  }

  touch(goalId: number): void {
    this.db
      .prepare(`UPDATE goals SET last_touched_at = ${TOUCHED}, updated_at = @at WHERE id = @goalId`)
      .run({ at: this.now(), goalId });
  }

  step(id: number): GoalStep | undefined {
    const row = this.db.prepare('SELECT * FROM goal_steps WHERE id = ?').get(id) as StepRow | undefined;
    return row ? toStep(row) : undefined;
  }

  planSize(goalId: number): { count: number; lastPosition: number } {
    return this.db
      .prepare(
        'SELECT count(*) AS count, coalesce(max(position), 0) AS lastPosition FROM goal_steps WHERE goal_id = ?',
      )
      .get(goalId) as { count: number; lastPosition: number };
  }

  appendStep(goalId: number, position: number, step: StepFields): GoalStep {
    return this.step(this.insertStep(goalId, position, step, this.now()))!;
  }

  changeStep(stepId: number, fields: StepFields): GoalStep | undefined {
    this.db
      .prepare('UPDATE goal_steps SET title = ?, status = ?, notes = ?, updated_at = ? WHERE id = ?')
      .run(fields.title, fields.status, fields.notes, this.now(), stepId);
    return this.step(stepId);
  }

  replacePlan(goalId: number, steps: readonly StepFields[]): void {
    const at = this.now();
    this.transaction(() => {
      this.db.prepare('DELETE FROM goal_steps WHERE goal_id = ?').run(goalId);
      for (const [index, step] of steps.entries()) this.insertStep(goalId, index + 1, step, at);
    });
  }

  pendingProposals(goalId: number): number {
    const { pending } = this.db
      .prepare("SELECT count(*) AS pending FROM goal_proposals WHERE goal_id = ? AND status = 'pending'")
      .get(goalId) as { pending: number };
    return pending;
  }

  addProposal(goalId: number, proposal: { reason: string; steps: readonly ProposedStep[] }): GoalProposal {
    const info = this.db
      .prepare(
        "INSERT INTO goal_proposals (goal_id, reason, steps, status, created_at) VALUES (?, ?, ?, 'pending', ?)",
      )
      .run(goalId, proposal.reason, JSON.stringify(proposal.steps), this.now());
    return this.proposal(Number(info.lastInsertRowid))!;
  }

  proposal(id: number): GoalProposal | undefined {
    const row = this.db.prepare('SELECT * FROM goal_proposals WHERE id = ?').get(id) as
      | ProposalRow
      | undefined;
    return row ? toProposal(row) : undefined;
  }

  decideProposal(id: number, status: 'accepted' | 'dismissed'): GoalProposal | undefined {
    this.db
      .prepare('UPDATE goal_proposals SET status = ?, decided_at = ? WHERE id = ?')
      .run(status, this.now(), id);
    return this.proposal(id);
  }

  overdue(before: string): Goal[] {
    return (this.db.prepare(DUE_QUERIES.overdue).all(before) as GoalRow[]).map(toGoal);
  }

  firstEligible(now: number): Goal | undefined {
    const row = this.db.prepare(DUE_QUERIES.untouched).get(now) as GoalRow | undefined;
    return row ? toGoal(row) : undefined;
  }

  /**
   * When the next goal pass is due with passes `intervalMs` apart: an interval after the latest pass of any
   * goal (before the first: after the earliest goal became eligible), and no sooner than some active goal is
   * eligible (new, changed since its last pass, or rested `UNCHANGED_REST_MS`); undefined when none is active.
   */
  nextPassAt(intervalMs: number): number | undefined {
    const { eligible } = this.db.prepare(DUE_QUERIES.firstEligible).get() as { eligible: number | null };
    if (eligible === null) return undefined;
    const { last } = this.db.prepare(DUE_QUERIES.lastPass).get() as { last: number | null };
    return Math.max((last ?? eligible) + intervalMs, eligible);
  }

  recordPass(pass: { id: number; expectedPasses: number; at: number; intervalMs: number }): boolean {
    const info = this.db
      .prepare(
        `UPDATE goals SET passes = passes + 1, last_pass_at = @at, last_touched_at = @at
         WHERE id = @id AND passes = @expectedPasses AND status = 'active'
           AND NOT EXISTS (SELECT 1 FROM goals WHERE last_pass_at > @at - @intervalMs)`,
      )
      .run(pass);
    return info.changes > 0;
  }

  dueCheckins(now: number, limit = 100): Goal[] {
    return (this.db.prepare(DUE_QUERIES.checkins).all(now, limit) as GoalRow[]).map(toGoal);
  }

  nextCheckinAt(): number | undefined {
    const row = this.db.prepare(DUE_QUERIES.nextCheckin).get() as { at: number | null };
    return row.at ?? undefined;
  }

  advanceCheckin(id: number, expected: number, next: number | undefined): void {
    this.db
      .prepare(
        "UPDATE goals SET next_checkin_at = ? WHERE id = ? AND status = 'active' AND next_checkin_at = ?",
      )
      .run(next ?? null, id, expected);
  }

  private insertStep(goalId: number, position: number, step: ProposedStep, at: number): number {
    const info = this.db
      .prepare(
        'INSERT INTO goal_steps (goal_id, position, title, status, notes, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(goalId, position, step.title, step.status ?? 'pending', step.notes ?? '', at);
    return Number(info.lastInsertRowid);
  }
}
