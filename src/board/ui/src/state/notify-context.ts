import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** What a machine card can do about notifications (silence and its end). */
export interface SilenceActions {
  silence(machine: string, minutes: number, reason: string): Promise<void>;
  unsilence(machine: string): Promise<void>;
}

export const SilenceContext = createContext<SilenceActions | null>(null);

/** The silence actions of the board page, or null outside it. */
export function useSilence(): SilenceActions | null {
  return useContext(SilenceContext);
}
