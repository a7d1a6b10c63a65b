import { useEffect, useState } from 'preact/hooks';
import { decideProposal, getGoal, updateGoal } from '../../api';
import { Badge, ErrorNote, Loading, PageHeader, stateTone } from '../../components/common';
import { Icon } from '../../components/icons';
import { liveEpoch } from '../../live';
import { hrefOf } from '../../router';
import { errorText, toast } from '../../state';
import type { GoalDetail } from '../../types';
import { GoalEditForm } from './goal-edit-form';
import { GoalProposals } from './goal-proposals';
import { GoalSteps } from './goal-steps';
import { GoalSummary } from './goal-summary';

function BackLink() {
  return (
    <a class="back-link" href={hrefOf('goals')}>
      <Icon name="back" size={16} /> All goals
    </a>
  );
}

/** One goal: summary (or its edit form), pending plan proposals and steps. Every change re-reads it. */
export function GoalView({ id }: { id: number }) {
  const [goal, setGoal] = useState<GoalDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);

  const load = () =>
    getGoal(id).then(
      (detail) => {
        setGoal(detail);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    setGoal(null);
    void load();
  }, [id, liveEpoch.value]);

  const run = async (work: () => Promise<unknown>) => {
    try {
      await work();
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  if (!goal) {
    return (
      <div class="page">
        <BackLink />
        <PageHeader title="Goal" />
        <ErrorNote message={error} onRetry={load} />
        {!error ? <Loading /> : null}
      </div>
    );
  }

  return (
    <div class="page">
      <BackLink />
      <PageHeader title={goal.title}>
        <Badge tone={stateTone(goal.status)}>{goal.status}</Badge>
      </PageHeader>
      {editing ? (
        <GoalEditForm
          goal={goal}
          onDiscard={() => setEditing(false)}
          onSave={(title, why) =>
            void run(async () => {
              await updateGoal(goal.id, { title, why });
              setEditing(false);
            })
          }
        />
      ) : (
        <GoalSummary
          goal={goal}
          onEdit={() => setEditing(true)}
          onStatus={(status) => run(() => updateGoal(goal.id, { status }))}
        />
      )}
      <GoalProposals
        proposals={goal.proposals.filter((proposal) => proposal.status === 'pending')}
        onDecide={(proposal, decision) => run(() => decideProposal(proposal.id, decision))}
      />
      <GoalSteps goal={goal} run={(work) => void run(work)} />
    </div>
  );
}
