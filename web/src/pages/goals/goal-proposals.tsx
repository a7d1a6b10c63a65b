import { Badge, Time } from '../../components/common';
import type { GoalProposal } from '../../types';
import { STEP_LABELS } from './step-labels';

/** Plan changes Wren proposed and the owner has not decided on yet (nothing when there are none). */
export function GoalProposals({
  proposals,
  onDecide,
}: {
  proposals: GoalProposal[];
  onDecide: (proposal: GoalProposal, decision: 'accept' | 'dismiss') => void;
}) {
  if (!proposals.length) return null;
  return (
    <section class="section" aria-labelledby="proposals-title">
      <h2 id="proposals-title">Proposed plan changes</h2>
      {proposals.map((proposal) => (
        <article key={proposal.id} class="card proposal" aria-label={`Proposal ${proposal.id}`}>
          <p>{proposal.reason}</p>
          <ol class="proposal-steps">
            {proposal.steps.map((step, index) => (
              <li key={`${index}-${step.title}`}>
                {step.title}
                {step.status && step.status !== 'pending' ? <Badge>{STEP_LABELS[step.status]}</Badge> : null}
              </li>
            ))}
          </ol>
          <div class="form-actions start">
            <button type="button" class="btn small primary" onClick={() => onDecide(proposal, 'accept')}>
              Accept plan
            </button>
            <button type="button" class="btn small" onClick={() => onDecide(proposal, 'dismiss')}>
              Dismiss
            </button>
            <span class="muted">
              <Time at={proposal.createdAt} />
            </span>
          </div>
        </article>
      ))}
    </section>
  );
}
