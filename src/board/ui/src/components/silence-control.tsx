import { useState } from 'preact/hooks';
import type { Machine } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n, useNow } from '../hooks.js';
import { useSilence } from '../state/notify-context.js';

/** The durations offered, in minutes (the API takes 1–43200). */
const DURATIONS = [15, 60, 240, 1440, 10080] as const;

/** A card's silence: "Silenced until …" with a button to end it, or a small form to start one. */
export function SilenceControl(props: { machine: Machine }) {
  const { t, time } = useI18n();
  const actions = useSilence();
  const may = useCan().operate(props.machine);
  const now = useNow();
  const m = props.machine;
  const [open, setOpen] = useState(false);
  const [minutes, setMinutes] = useState<number>(60);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (actions === null || !may) return null;
  const silenced = m.silencedUntil !== null && m.silencedUntil > now;
  const act = (work: Promise<void>) => {
    setBusy(true);
    setProblem(null);
    work.then(
      () => {
        setBusy(false);
        setOpen(false);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(error instanceof Error ? error.message : String(error));
      },
    );
  };
  const formId = `silence-${m.name}`;
  return (
    <div class="silence">
      {silenced ? (
        <p class="silenced-badge" data-testid="silenced">
          <span aria-hidden="true">🔕 </span>
          {t('silence.until', {
            time: time(m.silencedUntil as number),
          })}{' '}
          <button
            type="button"
            class="link"
            disabled={busy}
            aria-label={t('silence.endLabel', { machine: m.name })}
            onClick={() => act(actions.unsilence(m.name))}
          >
            {t('silence.end')}
          </button>
        </p>
      ) : open ? (
        <form
          class="silence-form"
          id={formId}
          aria-label={t('silence.label', { machine: m.name })}
          onSubmit={(e) => {
            e.preventDefault();
            act(actions.silence(m.name, minutes, reason.trim()));
          }}
        >
          <label>
            {t('silence.for')}{' '}
            <select
              value={String(minutes)}
              onChange={(e) => setMinutes(Number((e.target as HTMLSelectElement).value))}
            >
              {DURATIONS.map((d) => (
                <option key={d} value={String(d)}>
                  {d < 60
                    ? t('silence.minutes', { count: d })
                    : t('silence.hours', { count: d / 60 })}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('silence.reason')}{' '}
            <input
              type="text"
              maxLength={500}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" disabled={busy}>
            {t('silence.submit')}
          </button>
          <button type="button" class="link" onClick={() => setOpen(false)}>
            {t('silence.cancel')}
          </button>
        </form>
      ) : (
        <button
          type="button"
          class="link"
          aria-label={t('silence.label', { machine: m.name })}
          onClick={() => setOpen(true)}
        >
          {t('silence.button')}
        </button>
      )}
      {problem === null ? null : (
        <p class="problem" role="alert">
          {t('silence.problem', { detail: problem })}
        </p>
      )}
    </div>
  );
}
