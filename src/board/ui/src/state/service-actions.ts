import { useCallback, useRef, useState } from 'preact/hooks';
import { type Api, ApiError } from '../api/client.js';
import type { ActionName } from '../api/types.js';
import {
  type ActionState,
  type ConfirmRequest,
  type MachineOutcomes,
  withOutcome,
} from './outcomes.js';

/** What a page needs to ask before a Start, Stop or Forget, send it, and show what became of it. */
export interface ServiceActions {
  outcomes: ReadonlyMap<string, MachineOutcomes>;
  /** The question the confirmation dialog shows, or null. */
  confirm: ConfirmRequest | null;
  /** `unverified`: the machine's reports prove no key, so the page asks a second time. */
  requestAction(machine: string, service: string, action: ActionName, unverified: boolean): void;
  requestForget(machine: string, revoke: boolean): void;
  dismiss(machine: string, service: string | null): void;
  /** The dialog closed: ask again, send, or drop the question. */
  closed(request: ConfirmRequest, confirmed: boolean): void;
}

/**
 * The confirm-then-send cycle of the board page and the machine page. `forget` does the page's
 * part of a Forget (the request and what follows it); its failure is shown on the machine.
 */
export function useServiceActions(
  api: Api,
  problemText: (error: unknown) => string,
  forget: (machine: string, revoke: boolean) => Promise<void>,
): ServiceActions {
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, MachineOutcomes>>(new Map());
  // The latest of each, for callbacks that must keep their identity (cards are memoised).
  const latest = useRef({ api, problemText, forget });
  latest.current = { api, problemText, forget };

  const requestAction = useCallback(
    (machine: string, service: string, action: ActionName, unverified: boolean) =>
      setConfirm({ kind: 'action', machine, service, action, unverified }),
    [],
  );
  const requestForget = useCallback(
    (machine: string, revoke: boolean) => setConfirm({ kind: 'forget', machine, revoke }),
    [],
  );
  const dismiss = useCallback((machine: string, service: string | null) => {
    setOutcomes((all) =>
      withOutcome(all, machine, (o) => {
        if (service === null) return { ...o, forgetProblem: null };
        const services = { ...o.services };
        delete services[service];
        return { ...o, services };
      }),
    );
  }, []);

  const run = useCallback(async (request: ConfirmRequest) => {
    const { api, problemText, forget } = latest.current;
    const setService = (machine: string, service: string, state: ActionState) =>
      setOutcomes((all) =>
        withOutcome(all, machine, (o) => ({ ...o, services: { ...o.services, [service]: state } })),
      );
    if (request.kind === 'action') {
      const { machine, service, action } = request;
      setService(machine, service, { action, outcome: null });
      try {
        const outcome = await api.act(machine, service, action);
        setService(machine, service, { action, outcome });
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return;
        setService(machine, service, {
          action,
          outcome: { kind: 'failed', message: problemText(error), exitCode: null },
        });
      }
      return;
    }
    const { machine } = request;
    try {
      await forget(machine, request.revoke === true);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      const message = problemText(error);
      setOutcomes((all) => withOutcome(all, machine, (o) => ({ ...o, forgetProblem: message })));
    }
  }, []);

  const closed = useCallback(
    (request: ConfirmRequest, confirmed: boolean) => {
      // An unverified machine is asked about twice: anyone with the registration token
      // could have reported under its name.
      const again =
        confirmed &&
        request.kind === 'action' &&
        request.unverified === true &&
        request.second !== true;
      // Only the question that closed is cleared: a click between the dialog closing and
      // its 'close' event may already have asked a new one.
      setConfirm((current) =>
        current !== request ? current : again ? { ...request, second: true } : null,
      );
      if (confirmed && !again) void run(request);
    },
    [run],
  );

  return { outcomes, confirm, requestAction, requestForget, dismiss, closed };
}
