import { useState } from 'preact/hooks';
import { LABELS_MAX, labelKeyProblem, labelValueProblem } from '../../../../shared/labels.js';
import { type Api, LabelError } from '../api/client.js';
import type { Machine } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import { useProblemText } from '../state/problem-text.js';
import { LabelChips } from './label-chips.js';

interface Row {
  id: number;
  key: string;
  value: string;
}

/** The board labels a machine shows now (board.yaml's and the API's), as rows to edit. */
function boardRows(m: Machine): Row[] {
  return [...m.boardLabels].sort().map((key, id) => ({ id, key, value: m.labels[key] ?? '' }));
}

/** Why each row cannot be saved (by row id), checked with the board's own rule. */
function rowProblems(rows: readonly Row[]): Map<number, string> {
  const out = new Map<number, string>();
  const seen = new Set<string>();
  for (const r of rows) {
    const problem =
      labelKeyProblem(r.key) ??
      labelValueProblem(r.key, r.value) ??
      (seen.has(r.key) ? `label ${JSON.stringify(r.key)}: given twice` : null);
    if (problem !== null) out.set(r.id, problem);
    seen.add(r.key);
  }
  return out;
}

/**
 * A machine's labels on its page, and an editor of its board labels: saving sends every board
 * label listed (PUT /api/machines/{name}/labels); a refused label is shown at its field.
 */
export function MachineLabels(props: { api: Api; machine: Machine }) {
  const { t } = useI18n();
  const problemText = useProblemText(t);
  const m = props.machine;
  const may = useCan().administer(m);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [next, setNext] = useState(1000);
  const [problems, setProblems] = useState<Map<number, string>>(new Map());
  const [formProblem, setFormProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const change = (id: number, part: Partial<Row>) => {
    setRows((rs) => (rs ?? []).map((r) => (r.id === id ? { ...r, ...part } : r)));
    setProblems((p) => {
      if (!p.has(id)) return p;
      const out = new Map(p);
      out.delete(id);
      return out;
    });
  };
  const save = (list: Row[]) => {
    setFormProblem(null);
    const found = rowProblems(list);
    setProblems(found);
    if (found.size > 0) return;
    if (list.length > LABELS_MAX) {
      setFormProblem(t('labels.tooMany', { max: LABELS_MAX }));
      return;
    }
    setBusy(true);
    props.api.setLabels(m.name, Object.fromEntries(list.map((r) => [r.key, r.value]))).then(
      () => {
        setBusy(false);
        setRows(null);
      },
      (error: unknown) => {
        setBusy(false);
        const row = error instanceof LabelError ? list.find((r) => r.key === error.key) : undefined;
        if (row !== undefined && error instanceof Error)
          setProblems(new Map([[row.id, error.message]]));
        else setFormProblem(problemText(error));
      },
    );
  };

  return (
    <section class="machine-labels" aria-labelledby="labels-heading">
      <h2 id="labels-heading" class="history-heading">
        {t('labels.heading')}
      </h2>
      {Object.keys(m.labels).length === 0 ? (
        <p class="muted">{t('labels.none')}</p>
      ) : (
        <LabelChips machine={m} />
      )}
      {!may ? null : rows === null ? (
        <button type="button" onClick={() => setRows(boardRows(m))}>
          {t('labels.edit')}
        </button>
      ) : (
        <form
          class="label-editor"
          aria-label={t('labels.editLabel', { machine: m.name })}
          onSubmit={(e) => {
            e.preventDefault();
            save(rows);
          }}
        >
          <p class="muted">{t('labels.editHint')}</p>
          <ul>
            {rows.map((r) => {
              const problem = problems.get(r.id);
              const problemId = `label-problem-${r.id}`;
              const invalid = problem === undefined ? {} : { 'aria-describedby': problemId };
              return (
                <li key={r.id} class="label-row" data-row={r.key}>
                  <input
                    class="label-key"
                    aria-label={t('labels.key')}
                    value={r.key}
                    aria-invalid={problem !== undefined}
                    {...invalid}
                    onInput={(e) => change(r.id, { key: e.currentTarget.value })}
                  />
                  <span aria-hidden="true">=</span>
                  <input
                    class="label-value"
                    aria-label={t('labels.value')}
                    value={r.value}
                    aria-invalid={problem !== undefined}
                    {...invalid}
                    onInput={(e) => change(r.id, { value: e.currentTarget.value })}
                  />
                  <button
                    type="button"
                    class="link"
                    aria-label={t('labels.removeLabel', { key: r.key })}
                    onClick={() => setRows(rows.filter((x) => x.id !== r.id))}
                  >
                    {t('labels.remove')}
                  </button>
                  {problem === undefined ? null : (
                    <span id={problemId} class="label-problem" role="alert" translate={false}>
                      {problem}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          <p class="label-buttons">
            <button
              type="button"
              onClick={() => {
                setRows([...rows, { id: next, key: '', value: '' }]);
                setNext(next + 1);
              }}
            >
              {t('labels.add')}
            </button>
            <button type="submit" class="primary" disabled={busy}>
              {t('labels.save')}
            </button>
            <button
              type="button"
              class="link"
              onClick={() => {
                setRows(null);
                setProblems(new Map());
                setFormProblem(null);
              }}
            >
              {t('labels.cancel')}
            </button>
          </p>
          {formProblem === null ? null : (
            <p class="problem" role="alert">
              {t('labels.problem', { detail: formProblem })}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
