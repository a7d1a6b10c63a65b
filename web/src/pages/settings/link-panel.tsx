import { Spinner } from '../../components/common';
import type { ChannelStatus } from '../../types';
import { QrCode } from './qr-code';

/** How the owner links a device on each linked-device platform: where to go on the phone, in its words. */
const STEPS: Record<string, { qr: string; code: string }> = {
  whatsapp: {
    qr: 'On your phone: WhatsApp → Settings → Linked devices → Link a device, then point the camera at this code.',
    code: 'On your phone: WhatsApp → Settings → Linked devices → Link a device → Link with phone number instead, then type this code.',
  },
};

/** A platform's name as people write it (`whatsapp` → WhatsApp); others as the channel is called. */
export function platformName(channel: string): string {
  return channel === 'whatsapp' ? 'WhatsApp' : channel;
}

/**
 * What the owner needs while a channel is `linking`: the QR code to scan (redrawn whenever the platform
 * rotates it) or the pairing code to type, with the steps on the phone. Nothing for any other state.
 */
export function LinkPanel({ channel }: { channel: ChannelStatus }) {
  if (channel.state !== 'linking') return null;
  const name = platformName(channel.name);
  const steps = STEPS[channel.name] ?? {
    qr: `Scan this code with the ${name} app on your phone.`,
    code: `Type this code in the ${name} app on your phone.`,
  };
  const link = channel.link;
  // The page polls every 2 s while linking, so this is re-checked as the code ages.
  const expired = link?.expiresAt !== undefined && link.expiresAt < Date.now();
  return (
    <div class="link-panel">
      {link?.qr ? (
        <>
          <p class="link-steps">{steps.qr}</p>
          <QrCode text={link.qr} label={`${name} link code`} />
        </>
      ) : link?.code ? (
        <>
          <p class="link-steps">{steps.code}</p>
          <p class="pairing-code" role="status" aria-label={`${name} pairing code`}>
            {link.code}
          </p>
        </>
      ) : (
        <p class="link-steps">
          <Spinner label={`Waiting for ${name}`} /> Waiting for a code from {name}…
        </p>
      )}
      {expired ? <p class="muted">This code has expired; a new one appears in a moment.</p> : null}
    </div>
  );
}
