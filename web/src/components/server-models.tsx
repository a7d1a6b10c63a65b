import { useEffect, useState } from 'preact/hooks';
import { listServerModels } from '../api';
import { errorText } from '../state';

/** What the picker knows about the server's models right now. */
type Listing =
  | { state: 'idle' }
  | { state: 'asking' }
  | { state: 'found'; models: string[] }
  | { state: 'none'; reason: string };

/** The pause after the last keystroke in the base URL before the server is asked. */
const SETTLE_MS = 500;

/**
 * The models the server at `baseUrl` lists, asked through the gateway once the URL stops changing (an
 * earlier question still running is cancelled). Only http(s) URLs are asked; an empty URL asks nothing.
 */
function useServerModels(baseUrl: string, apiKey: string): Listing {
  const [listing, setListing] = useState<Listing>({ state: 'idle' });
  useEffect(() => {
    const url = baseUrl.trim();
    if (!/^https?:\/\/[^\s/]+/i.test(url)) {
      setListing({ state: 'idle' });
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setListing({ state: 'asking' });
      listServerModels(url, apiKey, controller.signal).then(
        (answer) =>
          setListing(
            answer.models.length
              ? { state: 'found', models: answer.models }
              : { state: 'none', reason: answer.error ?? 'The server lists no models.' },
          ),
        (failure) => {
          if (!controller.signal.aborted) setListing({ state: 'none', reason: errorText(failure) });
        },
      );
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [baseUrl, apiKey]);
  return listing;
}

/**
 * "Models on this server": once a base URL is given, a list of what that server serves to pick the model
 * from (picking fills the model field), or a short note why there is none.
 */
export function ServerModelPicker({
  baseUrl,
  apiKey,
  model,
  onPick,
}: {
  baseUrl: string;
  apiKey: string;
  model: string;
  onPick: (model: string) => void;
}) {
  const listing = useServerModels(baseUrl, apiKey);
  if (listing.state === 'idle') return null;
  if (listing.state === 'asking') {
    return (
      <p class="hint" role="status">
        Asking the server which models it has…
      </p>
    );
  }
  if (listing.state === 'none') {
    return (
      <p class="hint" role="status">
        No model list from the server: {listing.reason} You can still type the model id.
      </p>
    );
  }
  return (
    <div class="field">
      <label for="onboarding-server-models" class="field-label">
        Models on this server ({listing.models.length})
      </label>
      <select
        id="onboarding-server-models"
        value={listing.models.includes(model) ? model : ''}
        onChange={(event) => onPick(event.currentTarget.value)}
      >
        <option value="" disabled>
          Choose a model…
        </option>
        {listing.models.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </select>
    </div>
  );
}
