import { useEffect, useState } from 'preact/hooks';
import { getStatus } from '../../api';
import { Empty } from '../../components/common';
import type { ChannelStatus, Status } from '../../types';
import { ChannelRow } from './channel-row';

/** How often the channels are re-read while one links: WhatsApp rotates its QR code every ~20 s. */
const LINKING_POLL_MS = 2000;

/**
 * The running channels, each with its state and actions. The page hands in `/api/status` as it reads it (every
 * 15 s); while some channel is `linking` this section reads it every 2 s itself, so a rotated QR code or the
 * end of linking shows at once. The answers of Link/Unlink replace their channel's row straight away. Whichever
 * reading arrived last wins.
 */
export function ChannelsSection({ status }: { status: Status | null }) {
  const [channels, setChannels] = useState<ChannelStatus[]>(status?.channels ?? []);
  useEffect(() => {
    if (status) setChannels(status.channels ?? []);
  }, [status]);
  const linking = channels.some((channel) => channel.state === 'linking');
  useEffect(() => {
    if (!linking) return;
    const timer = setInterval(() => {
      // A failed read keeps what is shown; the page's own reading reports a lost gateway.
      getStatus().then(
        (value) => setChannels(value.channels ?? []),
        () => {},
      );
    }, LINKING_POLL_MS);
    return () => clearInterval(timer);
  }, [linking]);
  const replace = (next: ChannelStatus) =>
    setChannels((current) =>
      current.map((channel) =>
        // A route's answer comes from the channel itself: keep what the manager adds (`linkable`).
        channel.name === next.name ? { ...next, linkable: channel.linkable ?? next.linkable } : channel,
      ),
    );

  return (
    <section class="section" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      {status && channels.length === 0 ? (
        <Empty title="No chat channels running">Add Telegram, Slack … in config.yaml.</Empty>
      ) : null}
      {channels.length ? (
        <ul class="rows">
          {channels.map((channel) => (
            <ChannelRow key={channel.name} channel={channel} onChange={replace} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
