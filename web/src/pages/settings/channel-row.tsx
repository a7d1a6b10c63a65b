import { useRef, useState } from 'preact/hooks';
import { testChannel, unlinkChannel } from '../../api';
import { CodeText } from '../../components/code-text';
import { Badge, stateTone, Time } from '../../components/common';
import { channelLabel } from '../../components/session-list';
import { errorText } from '../../state';
import type { ChannelStatus } from '../../types';
import { LinkForm } from './link-form';
import { LinkPanel, platformName } from './link-panel';

/** States in which a linked-device channel can be (re)linked: never linked, logged out, given up, or mid-way. */
const LINKABLE_STATES = new Set(['logged-out', 'failed', 'linking']);

/** The outcome of the row's last Unlink or Send test, shown under it. */
type Outcome = { ok: boolean; text: string };

/**
 * One running channel: its state, the QR or pairing code while it links, and its actions — Link (QR code or
 * phone number) and Unlink (after a confirmation: it logs the device out) for linked-device platforms, Send
 * test for every chat platform. `onChange` gets the channel's status as a route returned it.
 */
export function ChannelRow({
  channel,
  onChange,
}: {
  channel: ChannelStatus;
  onChange: (status: ChannelStatus) => void;
}) {
  const [linking, setLinking] = useState(false);
  const [busy, setBusy] = useState<'unlink' | 'test' | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const linkButton = useRef<HTMLButtonElement>(null);
  const name = platformName(channel.name);
  const platform = channel.name !== 'api' && channel.name !== 'cli';
  const canLink = channel.linkable === true && LINKABLE_STATES.has(channel.state);
  const canUnlink = channel.linkable === true && channel.state === 'connected';

  const run = async (kind: 'unlink' | 'test', action: () => Promise<string>) => {
    setBusy(kind);
    setOutcome(null);
    try {
      setOutcome({ ok: true, text: await action() });
    } catch (failure) {
      setOutcome({ ok: false, text: errorText(failure) });
    } finally {
      setBusy(null);
    }
  };
  const unlink = () => {
    const question = `Unlink ${name}? Wren's device is logged out of ${name}, and you link it again to use it.`;
    if (!confirm(question)) return;
    void run('unlink', async () => {
      onChange(await unlinkChannel(channel.name));
      return `Unlinked: ${name} logged this device out.`;
    });
  };
  const sendTest = () =>
    void run('test', async () => {
      await testChannel(channel.name);
      return `Sent to you on ${channel.name}.`;
    });
  const closeForm = () => {
    setLinking(false);
    linkButton.current?.focus();
  };

  return (
    <li class="row channel-row">
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
        <LinkPanel channel={channel} />
        {linking && canLink ? (
          <LinkForm
            channel={channel.name}
            onLinked={(status) => {
              onChange(status);
              setLinking(false);
            }}
            onCancel={closeForm}
          />
        ) : null}
        {outcome ? (
          <p class={outcome.ok ? 'field-ok' : 'field-error'} role="status">
            {outcome.text}
          </p>
        ) : null}
      </div>
      {platform ? (
        <div class="row-actions">
          {canLink ? (
            <button
              ref={linkButton}
              type="button"
              class="btn small"
              aria-label={`Link ${name}`}
              aria-expanded={linking}
              aria-controls={linking ? `link-${channel.name}` : undefined}
              onClick={() => setLinking(!linking)}
            >
              Link
            </button>
          ) : null}
          {canUnlink ? (
            <button
              type="button"
              class="btn small danger-outline"
              aria-label={`Unlink ${name}`}
              disabled={busy !== null}
              onClick={unlink}
            >
              {busy === 'unlink' ? 'Unlinking…' : 'Unlink'}
            </button>
          ) : null}
          <button
            type="button"
            class="btn small"
            aria-label={`Send test on ${name}`}
            disabled={busy !== null}
            onClick={sendTest}
          >
            {busy === 'test' ? 'Sending…' : 'Send test'}
          </button>
        </div>
      ) : null}
    </li>
  );
}
