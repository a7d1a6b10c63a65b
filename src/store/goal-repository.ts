import type { Database } from 'better-sqlite3';
import {
  applyGoalChanges,
  checkinSchedule,
  checkNotes,
  checkPlan,
  type GoalChanges,
  type NewGoal,
  type StepChanges,
} from './goal-changes.js';
import {
  checkDueDate,
  checkText,
  checkTimezone,
  GOAL_LIMITS,
  type Goal,
  type GoalDetail,
  GoalError,
  type GoalProposal,
  type GoalRow,
  type GoalStatus,
  type GoalStep,
  localDate,
  type ProposalRow,
  type ProposedStep,
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

/** An overdue goal jumps the queue at most this often; otherwise it waits its turn like the others. */
const OVERDUE_EVERY_MS = 24 * 60 * 60_000;

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
 * Goals, their steps and proposals (schema v6); every process of a home may write here. Plans change only
 * through `addStep`/`updateStep` (the owner, or a step's status and notes by the model) and `accept` of a
 * proposal, which replaces the whole plan in one transaction; `propose` never touches the steps. Every change
 * moves the goal's `last_touched_at`, so the goal pass visits the most neglected goal first.
 * Methods throw GoalError: `not_found`, `invalid` (input to fix; the message says how) or `conflict`.
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

  create(goal: NewGoal): GoalDetail {
    const title = checkText(goal.title, 'goal title', GOAL_LIMITS.title);
    const why = goal.why?.trim() ? checkText(goal.why, 'goal reason', GOAL_LIMITS.why) : null;
    const timezone = checkTimezone(goal.timezone ?? this.timezone());
    const dueDate = goal.dueDate === undefined ? null : checkDueDate(goal.dueDate);
    const steps = goal.steps?.length ? checkPlan(goal.steps) : [];
    const at = this.now();
    const checkin = goal.checkinCron?.trim() ? checkinSchedule(goal.checkinCron, timezone, at) : undefined;
    return this.db
      .transaction(() => {
        const info = this.db
          .prepare(
            `INSERT INTO goals (title, why, status, due_date, checkin_cron, timezone, next_checkin_at,
             last_touched_at, session_id, deliver_to, created_at, updated_at)
           VALUES (?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            title,
            why,
            dueDate,
            checkin?.cron ?? null,
            timezone,
            checkin?.next ?? null,
            at,
            goal.sessionId ?? null,
            JSON.stringify(goal.deliverTo ?? []),
            at,
            at,
          );
        const id = Number(info.lastInsertRowid);
        for (const [index, step] of steps.entries()) this.insertStep(id, index + 1, step, at);
        return this.get(id)!;
      })
      .immediate();
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

  /** The goal with its plan and its pending proposals. */
  get(id: number): GoalDetail | undefined {
    const row = this.db.prepare('SELECT * FROM goals WHERE id = ?').get(id) as GoalRow | undefined;
    if (!row) return undefined;
    const steps = this.db
      .prepare('SELECT * FROM goal_steps WHERE goal_id = ? ORDER BY position, id')
      .all(id) as StepRow[];
    const proposals = this.db
      .prepare("SELECT * FROM goal_proposals WHERE goal_id = ? AND status = 'pending' ORDER BY id")
      .all(id) as ProposalRow[];
    return { ...toGoal(row), steps: steps.map(toStep), proposals: proposals.map(toProposal) };
  }

  /**
   * Changes a goal. A goal that becomes (or stays) active with a check-in schedule gets its next check-in
   * from now when the schedule, its zone or the status changed (a resumed goal does not catch up the
   * check-ins it missed while paused); a goal that is not active has none.
   */
  update(id: number, changes: GoalChanges): GoalDetail {
    const at = this.now();
    return this.db
      .transaction(() => {
        const goal = this.require(id);
        const next = applyGoalChanges(goal, changes, at);
        this.db
          .prepare(
            `UPDATE goals SET title = ?, why = ?, status = ?, due_date = ?, checkin_cron = ?, timezone = ?,
             next_checkin_at = ?, last_touched_at = max(?, coalesce(last_pass_at, 0) + 1), updated_at = ?
             WHERE id = ?`,
          )
          .run(
            next.title,
            next.why,
            next.status,
            next.dueDate,
            next.checkinCron,
            next.timezone,
            next.nextCheckinAt,
            at,
            at,
            id,
          );
        return this.get(id)!;
      })
      .immediate();
  }

  /** Appends a step to the plan. */
  addStep(goalId: number, step: ProposedStep): GoalStep {
    const at = this.now();
    return this.db
      .transaction(() => {
        this.require(goalId);
        const { count, last } = this.db
          .prepare(
            'SELECT count(*) AS count, coalesce(max(position), 0) AS last FROM goal_steps WHERE goal_id = ?',
          )
          .get(goalId) as { count: number; last: number };
        if (count >= GOAL_LIMITS.steps)
          throw new GoalError(
            'invalid',
            `Goal #${goalId} already has ${GOAL_LIMITS.steps} steps, the most a plan may have.`,
          );
        const id = this.insertStep(goalId, last + 1, step, at);
        this.touch(goalId, at);
        return this.step(id)!;
      })
      .immediate();
  }

  /** Changes one step of goal `goalId` (its status, notes or title). */
  updateStep(goalId: number, stepId: number, changes: StepChanges): GoalStep {
    const at = this.now();
    return this.db
      .transaction(() => {
        this.require(goalId);
        const step = this.step(stepId);
        if (!step || step.goalId !== goalId)
          throw new GoalError(
            'not_found',
            `Goal #${goalId} has no step ${stepId}; show the goal to see its steps.`,
          );
        const title =
          changes.title === undefined
            ? step.title
            : checkText(changes.title, 'step title', GOAL_LIMITS.title);
        const notes = changes.notes === undefined ? step.notes : checkNotes(changes.notes);
        this.db
          .prepare('UPDATE goal_steps SET title = ?, status = ?, notes = ?, updated_at = ? WHERE id = ?')
          .run(title, changes.status ?? step.status, notes, at, stepId);
        this.touch(goalId, at);
        return this.step(stepId)!;
      })
      .immediate();
  }

  /**
   * Records a proposed new plan for the owner to accept or dismiss; the goal's steps stay as they are.
   * @throws GoalError `conflict` when the goal already has the most pending proposals allowed.
   */
  propose(goalId: number, proposal: { reason: string; steps: ProposedStep[] }): GoalProposal {
    const reason = checkText(proposal.reason, 'proposal reason', GOAL_LIMITS.reason);
    const steps = checkPlan(proposal.steps);
    const at = this.now();
    return this.db
      .transaction(() => {
        this.require(goalId);
        const { pending } = this.db
          .prepare("SELECT count(*) AS pending FROM goal_proposals WHERE goal_id = ? AND status = 'pending'")
          .get(goalId) as { pending: number };
        if (pending >= GOAL_LIMITS.pendingProposals)
          throw new GoalError(
            'conflict',
            `Goal #${goalId} already has ${pending} proposals waiting for the owner; wait until they decide.`,
          );
        const info = this.db
          .prepare(
            "INSERT INTO goal_proposals (goal_id, reason, steps, status, created_at) VALUES (?, ?, ?, 'pending', ?)",
          )
          .run(goalId, reason, JSON.stringify(steps), at);
        this.touch(goalId, at);
        return this.proposal(Number(info.lastInsertRowid))!;
      })
      .immediate();
  }

  proposal(id: number): GoalProposal | undefined {
    const row = this.db.prepare('SELECT * FROM goal_proposals WHERE id = ?').get(id) as
      | ProposalRow
      | undefined;
    return row ? toProposal(row) : undefined;
  }

  /**
   * The owner accepts a pending proposal: the goal's plan becomes the proposal's steps, in one transaction
   * (all of the new plan or none of it). Other pending proposals stay pending.
   * @throws GoalError `not_found`, or `conflict` when it was already decided.
   */
  accept(proposalId: number): GoalDetail {
    const at = this.now();
    return this.db
      .transaction(() => {
        const proposal = this.decide(proposalId, 'accepted', at);
        this.db.prepare('DELETE FROM goal_steps WHERE goal_id = ?').run(proposal.goalId);
        for (const [index, step] of proposal.steps.entries())
          this.insertStep(proposal.goalId, index + 1, step, at);
        return this.get(proposal.goalId)!;
      })
      .immediate();
  }

  /** The owner dismisses a pending proposal; the plan is unchanged. @throws GoalError like `accept`. */
  dismiss(proposalId: number): GoalProposal {
    const at = this.now();
    return this.db.transaction(() => this.decide(proposalId, 'dismissed', at)).immediate();
  }

  /**
   * The goal the next pass advances: an active goal whose due date is before today in its own zone (least
   * recently touched first) and that had no pass in the last day, else the least recently touched active
   * goal. The day keeps one neglected overdue goal from taking every pass (the others still come in turn).
   */
  nextForPass(now: number): Goal | undefined {
    // No zone is ahead of UTC+14: a due date before that zone's today bounds every candidate.
    const latestToday = localDate(now, 'Pacific/Kiritimati');
    const overdue = this.db.prepare(DUE_QUERIES.overdue).iterate(latestToday) as IterableIterator<GoalRow>;
    for (const row of overdue) {
      const rested = row.last_pass_at === null || now - row.last_pass_at >= OVERDUE_EVERY_MS;
      if (rested && row.due_date! < localDate(now, row.timezone)) return toGoal(row);
    }
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
    const { last } = this.db.prepare(DUE_QUERIES.lastPass).get() as {
      last: number | null;
    };
    return Math.max((last ?? eligible) + intervalMs, eligible);
  }

  /**
   * Counts pass number `expectedPasses + 1` of goal `id` at `at` (touching it), only while the goal is active,
   * still has `expectedPasses`, and no goal had a pass in the `intervalMs` before `at`.
   * Meant to run inside the outbox claim of `goal:<id>:<expectedPasses + 1>`.
   * @returns whether the pass was counted (false: something changed since the caller looked; do not run it).
   */
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

  /** Active goals whose check-in is due at `now`, earliest first (one index range). */
  dueCheckins(now: number, limit = 100): Goal[] {
    return (this.db.prepare(DUE_QUERIES.checkins).all(now, limit) as GoalRow[]).map(toGoal);
  }

  /** The earliest next check-in of any active goal. */
  nextCheckinAt(): number | undefined {
    const row = this.db.prepare(DUE_QUERIES.nextCheckin).get() as { at: number | null };
    return row.at ?? undefined;
  }

  /**
   * Moves a goal's check-in from `expected` to `next` (undefined: the schedule has no more), only while it
   * still waits for `expected` (a concurrent edit wins). Meant to run inside the outbox claim.
   */
  advanceCheckin(id: number, expected: number, next: number | undefined): void {
    this.db
      .prepare(
        "UPDATE goals SET next_checkin_at = ? WHERE id = ? AND status = 'active' AND next_checkin_at = ?",
      )
      .run(next ?? null, id, expected);
  }

  private require(id: number): Goal {
    const row = this.db.prepare('SELECT * FROM goals WHERE id = ?').get(id) as GoalRow | undefined;
    if (!row) throw new GoalError('not_found', `There is no goal #${id}; list goals to see the ids.`);
    return toGoal(row);
  }

  private step(id: number): GoalStep | undefined {
    const row = this.db.prepare('SELECT * FROM goal_steps WHERE id = ?').get(id) as StepRow | undefined;
    return row ? toStep(row) : undefined;
  }

  private insertStep(goalId: number, position: number, step: ProposedStep, at: number): number {
    const info = this.db
      .prepare(
        'INSERT INTO goal_steps (goal_id, position, title, status, notes, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        goalId,
        position,
        checkText(step.title, 'step title', GOAL_LIMITS.title),
        step.status ?? 'pending',
        checkNotes(step.notes ?? ''),
        at,
      );
    return Number(info.lastInsertRowid);
  }

  private touch(goalId: number, at: number): void {
    this.db
      .prepare(`UPDATE goals SET last_touched_at = ${TOUCHED}, updated_at = @at WHERE id = @goalId`)
      .run({ at, goalId });
  }

  private decide(proposalId: number, status: 'accepted' | 'dismissed', at: number): GoalProposal {
    const proposal = this.proposal(proposalId);
    if (!proposal) throw new GoalError('not_found', `There is no proposal ${proposalId}.`);
    if (proposal.status !== 'pending')
      throw new GoalError('conflict', `Proposal ${proposalId} was already ${proposal.status}.`);
    this.db
      .prepare('UPDATE goal_proposals SET status = ?, decided_at = ? WHERE id = ?')
      .run(status, at, proposalId);
    this.touch(proposal.goalId, at);
    return { ...proposal, status, decidedAt: at };
  }
}
