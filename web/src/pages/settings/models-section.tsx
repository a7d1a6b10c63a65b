import { useEffect, useState } from 'preact/hooks';
import { listModels, testModel } from '../../api';
import { Empty, ErrorNote, Loading } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText } from '../../state';
import type { ModelInfo, ModelTest } from '../../types';
import { ModelRow } from './model-row';

export function ModelsSection() {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, ModelTest | 'running'>>({});
  const load = () =>
    listModels().then(
      (answer) => {
        setModels(answer.models);
        setNote(answer.note ?? null);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const test = async (name: string) => {
    setTests((current) => ({ ...current, [name]: 'running' }));
    try {
      const result = await testModel(name);
      setTests((current) => ({ ...current, [name]: result }));
    } catch (failure) {
      setTests((current) => ({ ...current, [name]: { ok: false, error: errorText(failure) } }));
    }
    void load();
  };

  return (
    <section class="section" aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      <ErrorNote message={error} onRetry={load} />
      {note ? <p class="hint">{note}</p> : null}
      {models === null && !error ? <Loading /> : null}
      {models?.length === 0 ? (
        <Empty title="No models configured">Run the setup, or add one to config.yaml.</Empty>
      ) : null}
      {models?.length ? (
        <ul class="rows">
          {models.map((model) => (
            <ModelRow
              key={model.name}
              model={model}
              result={tests[model.name]}
              onTest={() => test(model.name)}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
