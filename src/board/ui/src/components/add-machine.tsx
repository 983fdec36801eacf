import { useRef, useState } from 'preact/hooks';
import { type Api, ApiError, type Enrolled } from '../api/client.js';
import type { Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { parseLabelText } from '../state/label-text.js';

/** A command whose board is this machine's own loopback address. */
const LOOPBACK = /--board='(https?):\/\/(localhost|127\.[0-9.]+|\[::1\])[:/']/;

/** A command whose board is reached over plain HTTP. */
const PLAIN_HTTP = /--board='http:\/\//;

/** The board's machine names, as an HTML pattern (anchored by the browser). */
const NAME_PATTERN = '[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}';

export interface AddMachineProps {
  api: Api;
  /** The machine of this name on the board now (kept live over /api/live), if any. */
  machine(name: string): Machine | undefined;
  /** A name was enrolled (the cards' "Revoke" buttons follow). */
  onEnrolled(): void;
}

interface Stage {
  enrolled: Enrolled;
  /** The machine's last report before the key was made: "up" needs a newer, keyed one. */
  seenBefore: number | null;
}

/**
 * "Add a machine": a name, then the one command to paste on it (with its agent file's SHA-256),
 * and a line that turns from "waiting for lab7…" to "lab7 is up" when its first keyed report
 * arrives over the live feed. A modal <dialog>: Escape closes, focus comes back to the button.
 */
export function AddMachine(props: AddMachineProps) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const commandBox = useRef<HTMLTextAreaElement>(null);
  const [name, setName] = useState('');
  const [labelText, setLabelText] = useState('');
  const [stage, setStage] = useState<Stage | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);

  const open = () => {
    setStage(null);
    setProblem(null);
    setCopied(false);
    setName('');
    setLabelText('');
    dialog.current?.showModal();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const labels = parseLabelText(labelText);
    if ('problem' in labels) return;
    setBusy(true);
    setProblem(null);
    const before = props.machine(name)?.lastSeen ?? null;
    try {
      const given = Object.keys(labels.labels).length === 0 ? undefined : labels.labels;
      const enrolled = await props.api.enroll(name, given);
      setStage({ enrolled, seenBefore: before });
      props.onEnrolled();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    const text = stage?.enrolled.command ?? '';
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // No clipboard API (a page served over plain http to another host): select and copy.
      commandBox.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };

  const parsedLabels = parseLabelText(labelText);
  const labelProblem = 'problem' in parsedLabels ? parsedLabels.problem : null;
  const target = stage?.enrolled.name ?? name;
  const m = stage === null ? undefined : props.machine(stage.enrolled.name);
  const up =
    m !== undefined &&
    m.state === 'up' &&
    m.verified === true &&
    m.lastSeen !== null &&
    m.lastSeen !== stage?.seenBefore;

  return (
    <>
      <button ref={button} type="button" class="add-machine primary" onClick={open}>
        {t('add.button')}
      </button>
      <dialog
        ref={dialog}
        class="confirm add-dialog"
        aria-labelledby="add-title"
        onClose={() => button.current?.focus()}
      >
        <h2 id="add-title">{t('add.title')}</h2>
        {stage === null ? (
          <form onSubmit={(e) => void submit(e)}>
            <label for="add-name">{t('add.name')}</label>
            <input
              id="add-name"
              name="name"
              required
              pattern={NAME_PATTERN}
              maxLength={64}
              autoComplete="off"
              autoCapitalize="none"
              spellcheck={false}
              aria-describedby="add-name-hint"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              translate={false}
            />
            <p id="add-name-hint" class="hint">
              {t('add.nameHint')}
            </p>
            <label for="add-labels">{t('add.labels')}</label>
            <input
              id="add-labels"
              name="labels"
              autoComplete="off"
              autoCapitalize="none"
              spellcheck={false}
              placeholder="env=prod, site=fra"
              aria-describedby="add-labels-hint"
              aria-invalid={labelProblem !== null}
              value={labelText}
              onInput={(e) => setLabelText(e.currentTarget.value)}
              translate={false}
            />
            <p id="add-labels-hint" class={labelProblem === null ? 'hint' : 'hint problem'}>
              {labelProblem === null ? t('add.labelsHint') : labelProblem}
            </p>
            {problem === null ? null : (
              <p class="problem" role="alert">
                {t('add.problem', { machine: name })} <q translate={false}>{problem}</q>
              </p>
            )}
            <div class="dialog-buttons">
              <button type="button" onClick={() => dialog.current?.close()}>
                {t('add.close')}
              </button>
              <button type="submit" class="primary" disabled={busy || labelProblem !== null}>
                {t('add.create')}
              </button>
            </div>
          </form>
        ) : (
          <div>
            <p id="add-paste">{t('add.paste', { machine: target })}</p>
            <textarea
              ref={commandBox}
              class="command"
              readOnly
              rows={5}
              aria-label={t('add.command', { machine: target })}
              aria-describedby="add-paste"
              value={stage.enrolled.command}
              onFocus={(e) => e.currentTarget.select()}
              translate={false}
              spellcheck={false}
            />
            <div class="dialog-buttons start">
              <button type="button" class="primary" onClick={() => void copy()}>
                {t(copied ? 'add.copied' : 'add.copy')}
              </button>
            </div>
            {LOOPBACK.test(stage.enrolled.command) ? (
              <p class="hint" data-testid="add-loopback">
                {t('add.loopback')}
              </p>
            ) : null}
            {PLAIN_HTTP.test(stage.enrolled.command) ? (
              <p class="problem" role="note" data-testid="add-plain-http">
                {t('add.plainHttp')}
              </p>
            ) : null}
            <p class="sha">
              {t('add.sha')} <code translate={false}>{stage.enrolled.agentSha256}</code>
            </p>
            {stage.enrolled.updateKey === null ? null : (
              <p class="sha" data-testid="add-update-key">
                {t('add.updateKey')} <code translate={false}>{stage.enrolled.updateKey}</code>
              </p>
            )}
            <p
              class={`add-status ${up ? 'up' : 'waiting'}`}
              role="status"
              data-state={up ? 'up' : 'waiting'}
            >
              <span aria-hidden="true" class="state-icon">
                {up ? '▲' : '…'}
              </span>{' '}
              {t(up ? 'add.up' : 'add.waiting', { machine: target })}
            </p>
            <div class="dialog-buttons">
              <button type="button" onClick={() => dialog.current?.close()}>
                {t('add.close')}
              </button>
            </div>
          </div>
        )}
      </dialog>
    </>
  );
}
