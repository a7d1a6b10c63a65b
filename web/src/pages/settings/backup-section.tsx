import { useState } from 'preact/hooks';
import { downloadFile } from '../../api';
import { FieldError } from '../../components/field-error';
import { errorText, toast } from '../../state';
import { BackupSchedulePanel } from './backup-schedule';

/**
 * "Backup": downloads an archive of the home (`GET /api/backup`, the archive `wren backup` writes) without
 * secrets. A fetch, not a plain link: the download needs the session key as well as the cookie. Below it,
 * read-only, the scheduled backups and retention ages of config.yaml.
 */
export function BackupSection() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await downloadFile('/api/backup');
      toast('Backup downloaded.');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="section" aria-labelledby="backup-title">
      <h2 id="backup-title">Backup</h2>
      <div class="setting">
        <button type="button" class="btn" disabled={busy} aria-describedby="backup-hint" onClick={download}>
          {busy ? 'Making a backup…' : 'Download a backup'}
        </button>
      </div>
      <p id="backup-hint" class="hint">
        One .tar.gz of this Wren's home: the database, config.yaml, jobs, MCP and the workspace's files.
        Secrets (.env, tokens, any file holding a configured key) are not included;{' '}
        <code>wren backup --with-secrets</code> on this computer includes them. Restore with{' '}
        <code>wren restore FILE</code>.
      </p>
      <FieldError message={error} />
      <BackupSchedulePanel />
    </section>
  );
}
