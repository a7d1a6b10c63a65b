import { useEffect, useRef, useState } from 'preact/hooks';
import { linkChannel } from '../../api';
import { errorText } from '../../state';
import type { ChannelStatus } from '../../types';
import { platformName } from './link-panel';

type Method = 'qr' | 'code';

/**
 * How to link `channel`: by QR code (the default) or by a pairing code for a phone number. The gateway checks
 * the number (its 400 message shows under the field); spaces, dashes and brackets people type are dropped
 * first, since the route takes digits only. `onLinked` gets the channel's status once linking has begun.
 */
export function LinkForm({
  channel,
  onLinked,
  onCancel,
}: {
  channel: string;
  onLinked: (status: ChannelStatus) => void;
  onCancel: () => void;
}) {
  const [method, setMethod] = useState<Method>('qr');
  const [phone, setPhone] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const id = `link-${channel}`;
  const name = platformName(channel);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const request =
        method === 'qr'
          ? { method: 'qr' as const }
          : { method: 'code' as const, phone: phone.trim().replace(/[\s().-]/g, '') };
      onLinked(await linkChannel(channel, request));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  const choose = (next: Method) => {
    setMethod(next);
    setError(null);
  };

  return (
    <form
      id={id}
      class="link-form"
      aria-label={`Link ${name}`}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <fieldset class="link-methods">
        <legend class="field-label">Link by</legend>
        <label>
          <input
            ref={first}
            type="radio"
            name={`${id}-method`}
            checked={method === 'qr'}
            onChange={() => choose('qr')}
          />
          QR code
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-method`}
            checked={method === 'code'}
            onChange={() => choose('code')}
          />
          Phone number
        </label>
      </fieldset>
      {method === 'code' ? (
        <label class="field">
          <span class="field-label">Phone number, with its country code</span>
          <input
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            placeholder="+4915112345678"
            required
            value={phone}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onInput={(event) => setPhone(event.currentTarget.value)}
          />
        </label>
      ) : null}
      {error ? (
        <p id={`${id}-error`} class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="link-form-actions">
        <button type="submit" class="btn small primary" disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {method === 'qr' ? 'Show QR code' : 'Get pairing code'}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
