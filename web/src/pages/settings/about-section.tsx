import type { Status } from '../../types';

export function AboutSection({ status }: { status: Status | null }) {
  if (!status) return null;
  const hours = Math.floor(status.uptimeSeconds / 3600);
  const minutes = Math.floor((status.uptimeSeconds % 3600) / 60);
  return (
    <section class="section" aria-labelledby="about-title">
      <h2 id="about-title">About</h2>
      <dl class="facts-list">
        <dt>Version</dt>
        <dd>{status.version}</dd>
        <dt>Running for</dt>
        <dd>
          {hours} h {minutes} min
        </dd>
        {status.turnsInFlight !== undefined ? (
          <>
            <dt>Turns in flight</dt>
            <dd>{status.turnsInFlight}</dd>
          </>
        ) : null}
        {typeof status.memoryMb?.rss === 'number' ? (
          <>
            <dt>Memory</dt>
            <dd title="Resident memory of the Wren process">{Math.round(status.memoryMb.rss)} MB</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}
