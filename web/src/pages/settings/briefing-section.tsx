import { type SelectBinding, SelectSetting, type TextBinding, TextSetting } from './setting-fields';

/**
 * "Morning briefing" (`briefing:` in config.yaml), bound to the Preferences form's fields: the time (empty =
 * off), the days and the weather place. A list of days written in config.yaml (`[mon, thu]`) shows as a
 * "Custom" choice that cannot be picked again: the server only takes the three words, so the list is kept
 * until the owner picks one of them (which replaces it) — it is edited in config.yaml itself.
 */
export function BriefingSection({
  dayNames,
  at,
  days,
  weather,
}: {
  /** The days it runs on now, Sunday first. */
  dayNames: string[];
  at: TextBinding;
  days: SelectBinding;
  weather: TextBinding;
}) {
  const custom = days.value === 'custom';
  return (
    <section class="section" aria-labelledby="briefing-title">
      <h2 id="briefing-title">Morning briefing</h2>
      <p class="section-intro muted">
        A short summary of your day — agenda, tasks, reminders, mail and weather — sent where Wren’s check-ins
        go. You can also ask Wren in chat: “brief me every weekday at 7:30”.
      </p>
      <TextSetting
        {...at}
        label="Briefing time"
        placeholder="07:30"
        hint="HH:MM in your time zone. Empty: no briefing."
      />
      <SelectSetting
        {...days}
        label="Briefing days"
        hint={
          custom
            ? `config.yaml lists the days (${dayNames.join(', ')}); edit them there, or pick one of these to replace the list.`
            : 'The days it is sent on.'
        }
      >
        <option value="daily">Every day</option>
        <option value="weekdays">Weekdays (Monday to Friday)</option>
        <option value="weekends">Weekends</option>
        {custom ? (
          <option value="custom" disabled>
            Custom: {dayNames.join(', ')}
          </option>
        ) : null}
      </SelectSetting>
      <TextSetting
        {...weather}
        label="Weather for"
        placeholder="Berlin"
        hint="A place name or lat,lon for today’s forecast in the briefing. Empty: no weather."
      />
    </section>
  );
}
