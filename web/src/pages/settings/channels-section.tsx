import { CodeText } from '../../components/code-text';
import { Badge, Empty, stateTone, Time } from '../../components/common';
import { channelLabel } from '../../components/session-list';
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
                <div class="row-title">
                  {channel.name === 'api' ? 'web app and HTTP API' : channelLabel(channel.name)}
                </div>
                <div class="row-meta">
                  <Badge tone={stateTone(channel.state)}>
                    {channel.state}
                    {channel.detail && channel.state !== 'connected' ? (
                      <>
                        : <CodeText text={channel.detail} />
                      </>
                    ) : null}
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
