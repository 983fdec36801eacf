import type { MadeLink, PersonView } from '../auth/local-people.js';
import type { BindingView } from '../auth/roles.js';

/** What `users` does, whether to the store itself or through the running board's API. */
export interface UsersPort {
  list(): Promise<PersonView[]>;
  add(name: string, bindings: BindingView[]): Promise<MadeLink>;
  remove(name: string): Promise<void>;
  link(name: string): Promise<MadeLink>;
  close(): Promise<void>;
}

/** A refusal to show as it is (the board's detail, or the store's answer). */
export class UsersError extends Error {}
