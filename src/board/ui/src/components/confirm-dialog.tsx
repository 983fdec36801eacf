import { useEffect, useRef } from 'preact/hooks';
import { useI18n } from '../hooks.js';
import type { ConfirmRequest } from '../state/outcomes.js';

/**
 * Asks before anything is sent: a modal <dialog> (focus moves in, Escape cancels, the page
 * behind is inert), then gives focus back to the control that asked.
 */
export function ConfirmDialog(props: {
  request: ConfirmRequest | null;
  /** `closed` is the question that was shown, whatever the page asks by the time it is called. */
  onClose(closed: ConfirmRequest, confirmed: boolean): void;
}) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const shown = useRef<ConfirmRequest | null>(null);
  const confirmed = useRef(false);
  const { request, onClose } = props;

  useEffect(() => {
    const d = dialog.current;
    if (d === null) return;
    if (request === null) {
      // Never left open with nothing in it.
      if (d.open) d.close();
      return;
    }
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    shown.current = request;
    confirmed.current = false;
    if (!d.open) d.showModal();
  }, [request]);

  if (request === null) return <dialog ref={dialog} class="confirm" />;

  let question: string;
  let yes: string;
  if (request.kind === 'action') {
    const params = { service: request.service, machine: request.machine };
    question = t(request.action === 'start' ? 'confirm.start' : 'confirm.stop', params);
    yes = t(request.action === 'start' ? 'confirm.yesStart' : 'confirm.yesStop', params);
    if (request.second === true) {
      question = t('confirm.unverified', { ...params, action: request.action });
      yes = t('confirm.yesUnverified', params);
    }
  } else if (request.revoke === true) {
    question = t('confirm.revoke', { machine: request.machine });
    yes = t('confirm.yesRevoke', { machine: request.machine });
  } else {
    question = t('confirm.forget', { machine: request.machine });
    yes = t('confirm.yesForget', { machine: request.machine });
  }
  const destructive = request.kind === 'forget';

  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-question"
      onClose={() => {
        // 'close' is a queued event: a new question may have opened the dialog again before it
        // came. That one is being asked; this event is not about it.
        const closed = shown.current;
        if (dialog.current?.open === true || closed === null) return;
        shown.current = null;
        const target = opener.current;
        onClose(closed, confirmed.current);
        // The control may be gone (a forgotten machine); focus what is left, else the list.
        if (target?.isConnected) target.focus();
        else document.getElementById('machines')?.focus();
      }}
    >
      <form method="dialog">
        <h2 id="confirm-title">{t('confirm.title')}</h2>
        <p id="confirm-question">{question}</p>
        <div class="dialog-buttons">
          <button type="submit" value="cancel" autofocus={destructive}>
            {t('confirm.cancel')}
          </button>
          <button
            type="submit"
            value="ok"
            class={destructive ? 'danger' : 'primary'}
            autofocus={!destructive}
            onClick={() => {
              confirmed.current = true;
            }}
          >
            {yes}
          </button>
        </div>
      </form>
    </dialog>
  );
}
