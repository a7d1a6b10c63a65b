import { useEffect, useState } from 'preact/hooks';
import { getStatus } from '../api';
import { ErrorNote, PageHeader } from '../components/common';
import { liveEpoch } from '../live';
import { errorText } from '../state';
import type { Status } from '../types';
import { AboutSection } from './settings/about-section';
import { AppearanceSection } from './settings/appearance-section';
import { BackupSection } from './settings/backup-section';
import { CalendarsSection } from './settings/calendars-section';
import { ChannelsSection } from './settings/channels-section';
import { McpSection } from './settings/mcp-section';
import { ModelsSection } from './settings/models-section';
import { NotificationsSection } from './settings/notifications-section';
import { PreferencesSection } from './settings/preferences-section';
import { VaultSection } from './settings/vault-section';

export function SettingsPage() {
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    getStatus().then(
      (value) => {
        setStatus(value);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
    // Channel states change (a reconnecting Telegram): refresh while the page is open.
    const timer = setInterval(load, 15_000);
    return () => clearInterval(timer);
  }, [liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Settings" />
      <ErrorNote message={error} onRetry={load} />
      {status?.configError ? <ErrorNote message={`config.yaml: ${status.configError}`} /> : null}
      <AppearanceSection />
      <NotificationsSection />
      <PreferencesSection />
      <ModelsSection />
      <ChannelsSection status={status} />
      <CalendarsSection />
      <McpSection />
      <VaultSection />
      <BackupSection />
      <AboutSection status={status} />
    </div>
  );
}
