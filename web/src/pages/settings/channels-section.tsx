import { Badge, Empty, stateTone, Time } from '../../components/common';
import type { Status } from '../../types';

export function ChannelsSection({ status }: { status: Status | null }) {
  const channels = status?.channels ?? [];
  return (
    <section class="section" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      {status && channels.length === 0 ? (
        <Empty title="No chat channels running">Add Telegram, Slack … in config.yaml.</Empty>
      ) : null}
      {channels.length ? (
        <ul class="rows">
          {channels.map((channel) => (
            <li key={channel.name} class="row">
              <div class="row-main">
                <div class="row-title">{channel.name}</div>
                <div class="row-meta">
                  <Badge tone={stateTone(channel.state)}>
                    {channel.state}
                    {channel.detail && channel.state !== 'connected' ? `: ${channel.detail}` : ''}
                  </Badge>
                  <span>
                    since <Time at={channel.since} />
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
