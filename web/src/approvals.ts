import { computed, signal } from '@preact/signals';
import { answerApproval, listApprovals } from './api';
import { subscribe } from './live';
import type { ApprovalChoice, ApprovalRequest } from './types';

/**
 * The pending approvals of every session, oldest first: loaded from `GET /api/approvals` after sign-in and
 * after each reconnect, then kept current by the live `approval` / `approval-resolved` frames (and the same
 * events of a chat stream). The nav badge, the Approvals page and the chat's inline cards all read it.
 */
export const pendingApprovals = signal<ApprovalRequest[]>([]);
export const pendingCount = computed(() => pendingApprovals.value.length);

export function upsertApproval(request: ApprovalRequest): void {
  const others = pendingApprovals.value.filter((item) => item.id !== request.id);
  pendingApprovals.value = [...others, request].sort((a, b) => a.createdAt - b.createdAt);
}

export function dropApproval(id: string | undefined): void {
  if (id) pendingApprovals.value = pendingApprovals.value.filter((item) => item.id !== id);
}

export async function loadApprovals(): Promise<void> {
  try {
    pendingApprovals.value = await listApprovals();
  } catch {
    // 503 no_gate (the gate runs elsewhere) or offline: keep what is shown.
  }
}

/** Answers one request; it leaves the list at once (a 404 means it was already answered or expired). */
export async function answer(id: string, choice: ApprovalChoice): Promise<void> {
  try {
    await answerApproval(id, choice);
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
  }
  dropApproval(id);
}

subscribe('approval', upsertApproval);
subscribe('approval-resolved', (event) => dropApproval(event.id));
