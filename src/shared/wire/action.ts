import { type Static, Type } from '../typebox.js';
import { Action, Name } from './common.js';

/** The agent's answer to POST /api/do/{what}/{action}. */
export const ActionResult = Type.Object({
  what: Name,
  action: Action,
  ok: Type.Boolean(),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  output: Type.String({ description: 'the last 4 KiB of output' }),
});
export type ActionResult = Static<typeof ActionResult>;

/** An action the board hands over to an announcing machine in the answer to its report. */
export const HandedAction = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  what: Name,
  action: Action,
  requested_at: Type.String({ description: 'ISO 8601' }),
});
export type HandedAction = Static<typeof HandedAction>;

/** What an agent sends back, in its next report, for an action it was handed. */
export const HandedResult = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  status: Type.Integer({
    minimum: 100,
    maximum: 599,
    description: 'as /api/do would have answered',
  }),
  body: Type.Unknown({ description: 'the body /api/do would have answered' }),
});
export type HandedResult = Static<typeof HandedResult>;
