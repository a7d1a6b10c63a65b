import { useState } from 'preact/hooks';
import { addStep, updateStep } from '../../api';
import { Empty } from '../../components/common';
import type { GoalDetail, StepStatus } from '../../types';
import { STEP_LABELS, STEP_STATUSES } from './step-labels';

/**
 * The goal's steps, each with a status picker, and a form for a new one. `run` does the change and
 * re-reads the goal (or shows why it failed).
 */
export function GoalSteps({ goal, run }: { goal: GoalDetail; run: (work: () => Promise<unknown>) => void }) {
  const [stepTitle, setStepTitle] = useState('');
  return (
    <section class="section" aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {goal.steps.length === 0 ? (
        <Empty title="No steps yet">Add the first one below, or ask Wren to plan it.</Empty>
      ) : null}
      {goal.steps.length ? (
        <ol class="rows steps">
          {goal.steps.map((step) => (
            <li key={step.id} class={`row step step-${step.status}`}>
              <div class="row-main">
                <div class="row-title">{step.title}</div>
                {step.notes ? <p class="row-notes">{step.notes}</p> : null}
              </div>
              <label class="visually-hidden" for={`step-${step.id}`}>
                Status of {step.title}
              </label>
              <select
                id={`step-${step.id}`}
                value={step.status}
                onChange={(event) =>
                  run(() => updateStep(goal.id, step.id, { status: event.currentTarget.value as StepStatus }))
                }
              >
                {STEP_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {STEP_LABELS[status]}
                  </option>
                ))}
              </select>
            </li>
          ))}
        </ol>
      ) : null}
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const text = stepTitle.trim();
          if (!text) return;
          run(async () => {
            await addStep(goal.id, { title: text });
            setStepTitle('');
          });
        }}
      >
        <label for="new-step" class="visually-hidden">
          New step
        </label>
        <input
          id="new-step"
          value={stepTitle}
          placeholder="Add a step"
          onInput={(event) => setStepTitle(event.currentTarget.value)}
        />
        <button type="submit" class="btn" disabled={!stepTitle.trim()}>
          Add step
        </button>
      </form>
    </section>
  );
}
