import type { StepStatus } from '../../types';

export const STEP_LABELS: Record<StepStatus, string> = {
  pending: 'To do',
  in_progress: 'In progress',
  done: 'Done',
  blocked: 'Blocked',
  skipped: 'Skipped',
};
