import { BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import { type Binding, Scope, WHOLE_BOARD } from './roles.js';

/** How an actor proved who they are (GET /api/me's `via`). */
export type Via = 'oidc' | 'passkey' | 'password' | 'header' | 'token' | 'board_token';

/** Who a request is: what the journal names, what they may see and do, and how they got in. */
export interface Actor {
  /** A person's name, a token's name, or `board_token`. */
  readonly name: string;
  readonly via: Via;
  /** What the journal writes for what this actor does. */
  readonly who: Who;
  readonly scope: Scope;
  /** The browser session the request came with (its id, a digest), or null. */
  readonly session: string | null;
  /** The token's id when the request came with an API token, else null. */
  readonly tokenId: string | null;
}

/** The board token: the built-in admin, over everything. */
export const BOARD_ACTOR: Actor = Object.freeze({
  name: 'board_token',
  via: 'board_token',
  who: BOARD_WHO,
  scope: WHOLE_BOARD,
  session: null,
  tokenId: null,
});

/** A signed-in person (a browser session, or a request an authenticating proxy vouched for). */
export function personActor(
  name: string,
  via: Via,
  bindings: readonly Binding[],
  session: string | null,
): Actor {
  return {
    name,
    via,
    who: { word: 'board', actor: { kind: 'person', name } },
    scope: new Scope(bindings),
    session,
    tokenId: null,
  };
}

/** A request with an API token. */
export function tokenActor(name: string, id: string, bindings: readonly Binding[]): Actor {
  return {
    name,
    via: 'token',
    who: { word: 'board', actor: { kind: 'token', name } },
    scope: new Scope(bindings),
    session: null,
    tokenId: id,
  };
}

/** What the journal names for what an actor does through MCP (the credential's name kept). */
export function throughMcp(actor: Actor): Who {
  return { word: actor.who.word, actor: { kind: 'mcp', name: actor.who.actor.name } };
}
