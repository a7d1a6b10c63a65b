import { useState } from 'preact/hooks';
import { errorText } from '../state';

/**
 * A form's submit handler: does nothing unless `ready`; else clears the last error, is `busy` while `work`
 * runs, and keeps its failure as `error` for the form to show.
 */
export function useSubmit(work: () => Promise<void>, ready = true) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}
