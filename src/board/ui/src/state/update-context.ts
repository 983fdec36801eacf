import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** What a machine card can ask of the board about its agent: an update from the board. */
export interface UpdateActions {
  update(machine: string): Promise<void>;
}

export const UpdateContext = createContext<UpdateActions | null>(null);

/** The update action of the board page, or null outside it. */
export function useUpdate(): UpdateActions | null {
  return useContext(UpdateContext);
}
