import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Loading } from '../components/common';
import type { PageName } from '../router';
import { errorText } from '../state';

/**
 * The pages besides Chat and Approvals load as a separate chunk, so the first screen (sign-in, chat) parses
 * less JavaScript. All of them are fetched once the app is idle (`prefetchPages`), so switching pages does
 * not wait on the network in practice; the service worker keeps them for offline starts.
 */
type PageComponent = FunctionComponent<{ param: string }>;

/** One chunk for all of them: they compress better together than as seven small files. */
const more = () => import('./more-pages');

const LOADERS: Partial<Record<PageName, () => Promise<PageComponent>>> = {
  feed: () => more().then((module) => module.FeedPage),
  agenda: () => more().then((module) => module.AgendaPage),
  reminders: () => more().then((module) => module.RemindersPage),
  tasks: () => more().then((module) => module.TasksPage),
  memos: () => more().then((module) => module.MemosPage),
  goals: () => more().then((module) => module.GoalsPage),
  memory: () => more().then((module) => module.MemoryPage),
  settings: () => more().then((module) => module.SettingsPage),
};

const loaded = new Map<PageName, PageComponent>();

function load(page: PageName): Promise<PageComponent> {
  const ready = loaded.get(page);
  if (ready) return Promise.resolve(ready);
  const loader = LOADERS[page];
  if (!loader) return Promise.reject(new Error(`No page ${page}.`));
  return loader().then((component) => {
    loaded.set(page, component);
    return component;
  });
}

export function isLazyPage(page: PageName): boolean {
  return page in LOADERS;
}

/** Fetches every page chunk in the background (errors are ignored: the page retries when opened). */
export function prefetchPages(): void {
  for (const page of Object.keys(LOADERS) as PageName[]) load(page).catch(() => {});
}

export function LazyPage({ page, param }: { page: PageName; param: string }) {
  const [, setTick] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const Component = loaded.get(page);

  useEffect(() => {
    if (loaded.has(page)) return;
    setError(null);
    load(page).then(
      () => setTick((tick) => tick + 1),
      (failure) => setError(`This page could not be loaded: ${errorText(failure)}`),
    );
  }, [page]);

  if (Component) return <Component param={param} />;
  return (
    <div class="page">
      <ErrorNote message={error} onRetry={() => location.reload()} />
      {error ? null : <Loading />}
    </div>
  );
}
