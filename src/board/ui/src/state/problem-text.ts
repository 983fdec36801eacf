import { useCallback } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import type { I18n } from '../i18n/i18n.js';

/** What a failed request says to the person: "unreachable" for no answer, else its message. */
export function useProblemText(t: I18n['t']): (error: unknown) => string {
  return useCallback(
    (error: unknown) =>
      error instanceof ApiError && error.status === 0
        ? t('problem.unreachable')
        : error instanceof Error
          ? error.message
          : String(error),
    [t],
  );
}
