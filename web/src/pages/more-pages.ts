/** The pages loaded after the first screen, as one chunk (see lazy-pages.tsx). */
export { AgendaPage } from './agenda-page';
export { FeedPage } from './feed-page';
export { GoalsPage } from './goals-page';
export { MemoryPage } from './memory-page';
export { MemosPage } from './memos-page';
export { RemindersPage } from './reminders-page';
export { SettingsPage } from './settings-page';
export { TasksPage } from './tasks-page';
