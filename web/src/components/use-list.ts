import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../state';

/**
 * A list read from the gateway: `items` is null until the first answer; `load` reads it again (and is what
 * Retry and "added" call); it is read whenever one of `deps` changes. A failed read keeps the last list and
 * says why in `error`.
 */
export function useList<T>(read: () => Promise<T[]>, deps: unknown[]) {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    read().then(
      (list) => {
        setItems(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, deps);
  return { items, error, load };
}
