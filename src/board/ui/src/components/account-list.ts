import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** A list an admin page shows (people, tokens), the problem last met, and a way to change it. */
export interface AccountList<T> {
  items: T[] | null;
  problem: string | null;
  busy: boolean;
  /** Runs a change, then reads the list again; its failure becomes the problem shown. */
  run(work: () => Promise<void>): Promise<void>;
}

/** Reads `read()` once and after each change; `problemText` words a failure in the language. */
export function useAccountList<T>(
  read: () => Promise<T[]>,
  problemText: (e: unknown) => string,
): AccountList<T> {
  // The language may change under the page: that must not read the list again.
  const problemTextRef = useRef(problemText);
  problemTextRef.current = problemText;
  const [items, setItems] = useState<T[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    read().then(
      (list) => {
        setItems(list);
        setProblem(null);
      },
      (e: unknown) => setProblem(problemTextRef.current(e)),
    );
  }, [read]);
  useEffect(load, [load]);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(null);
    try {
      await work();
      load();
    } catch (e) {
      setProblem(problemTextRef.current(e));
    } finally {
      setBusy(false);
    }
  };
  return { items, problem, busy, run };
}
