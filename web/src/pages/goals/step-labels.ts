import type { StepStatus } from '../../types';

export const STEP_LABELS: Record<StepStatus, string> = {
  pending: 'To do',
  in_progress: 'In progress',
  done: 'Done',
  blocked: 'Blocked',
  skipped: 'Skipped',
};

/** Every step status, in the order the picker offers them (the Record above keeps it complete). */
export const STEP_STATUSES = Object.keys(STEP_LABELS) as StepStatus[];
