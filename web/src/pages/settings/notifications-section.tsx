import { useEffect, useState } from 'preact/hooks';
import { FieldError } from '../../components/field-error';
import { currentSubscription, disablePush, enablePush, pushUnavailable } from '../../push';
import { errorText, toast } from '../../state';

/** "Notifications on this device": this browser's web push subscription. */
export function NotificationsSection() {
  const unavailable = pushUnavailable();
  const [on, setOn] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (unavailable) return;
    currentSubscription().then(
      (subscription) => setOn(subscription !== null && Notification.permission === 'granted'),
      () => setOn(false),
    );
  }, []);

  const change = async (wanted: boolean) => {
    setBusy(true);
    setError(null);
    try {
      if (wanted) await enablePush();
      else await disablePush();
      setOn(wanted);
      toast(wanted ? 'Notifications are on for this device.' : 'Notifications are off for this device.');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="section" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <div class="setting">
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={on}
            checked={on}
            disabled={busy || unavailable !== null}
            aria-describedby="push-hint"
            onChange={(event) => change(event.currentTarget.checked)}
          />
          <span class="switch-track" aria-hidden="true" />
          Notifications on this device
        </label>
      </div>
      <p id="push-hint" class="hint">
        {unavailable ??
          'Reminders and messages Wren sends on its own arrive here even when the app is closed. Web push needs https, or localhost on this computer. Wren sends them when proactive.push is on in config.yaml.'}
      </p>
      <FieldError message={error} />
    </section>
  );
}
