import { type Static, Type } from '../shared/typebox.js';
import { Action, Name } from '../shared/wire/common.js';

/** One machine as GET /api/board shows it. */
export const MachineView = Type.Object({
  name: Name,
  origin: Type.Union([Type.Literal('configured'), Type.Literal('announced')]),
  state: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  location: Type.String({ description: 'where a browser reaches the machine' }),
  board: Type.Union([Type.String(), Type.Null()], {
    description: 'the board (board_id) that last polled the machine or took its report',
  }),
  last_seen: Type.Union([Type.String(), Type.Null()], {
    description: 'ISO 8601 time of the last good poll or report',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it is down' }),
  queued: Type.Integer({ minimum: 0, description: 'actions queued for it' }),
  labels: Type.Record(Type.String(), Type.String(), {
    description:
      "its labels: the board's (board.yaml, the API, the enroll dialog) and its agent's, the board's value winning on a key",
  }),
  board_labels: Type.Array(Type.String(), {
    description: 'the keys of `labels` the board set (only these count where access is decided)',
  }),
  agent: Type.Object(
    {
      version: Type.Union([Type.String(), Type.Null()], {
        description: "the agent's version, as its overview says",
      }),
      sha256: Type.Union([Type.String(), Type.Null()], {
        description: 'SHA-256 (hex) of the file the agent runs from; null: not one file',
      }),
      update_available: Type.Boolean({
        description:
          'the board serves its kind of agent file (agent_file) and that file differs from the one it runs',
      }),
      updates: Type.Union([Type.Literal('on'), Type.Literal('off')], {
        description: 'on: the agent takes updates from its board (update_from_board)',
      }),
      last_update: Type.Union(
        [
          Type.Object({
            state: Type.Union([
              Type.Literal('updated'),
              Type.Literal('rolled_back'),
              Type.Literal('refused'),
            ]),
            detail: Type.String({
              description: "the agent's own words: why, for rolled_back and refused",
            }),
            at: Type.String({ description: 'when, by the agent’s clock (ISO 8601)' }),
          }),
          Type.Null(),
        ],
        {
          description:
            'how its last update from the board ended, as the agent reports it (until the next one); null: it says nothing',
        },
      ),
    },
    { description: 'the agent on the machine, for updates from the board' },
  ),
  container_alerts: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ description: "the container's name" }),
        problem: Type.Union([Type.Literal('stopped'), Type.Literal('unhealthy')], {
          description: 'stopped: it ran and stopped or went; unhealthy: its health check fails',
        }),
      }),
      {
        description:
          'containers in an open episode (the `container` notification event): ones that ran ' +
          'and stopped, or turned unhealthy; absent when there are none',
      },
    ),
  ),
  acknowledged: Type.Optional(
    Type.Array(
      Type.Object({
        session: Type.String(),
        at: Type.String({ description: 'the `at` of the bell acknowledged' }),
      }),
      {
        description:
          'acknowledged bells of its sessions (POST /api/sessions/{machine}/{session}/ack): a ' +
          'session whose latest bell is no newer waits for nobody; absent when there are none',
      },
    ),
  ),
  held_sessions: Type.Optional(
    Type.Array(
      Type.Object({
        session: Type.String(),
        why: Type.String(),
        text: Type.String(),
        at: Type.String(),
      }),
      {
        description:
          'sessions waiting for a person that its overview no longer lists (its agent restarted ' +
          'without them): held until acknowledged, rung again, or the machine is forgotten; ' +
          'absent when there are none',
      },
    ),
  ),
  overview: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: "what the machine's own /api/overview said last",
  }),
});
export type MachineView = Static<typeof MachineView>;

/** GET /api/board. */
export const BoardView = Type.Object({
  swept_at: Type.Union([Type.String(), Type.Null()]),
  sweep_ms: Type.Union([Type.Number(), Type.Null()]),
  machines: Type.Array(MachineView),
});

export const Outcome = Type.Union(
  ['done', 'failed', 'refused', 'queued', 'delivered', 'expired', 'forgotten', 'announced'].map(
    (o) => Type.Literal(o),
  ),
);

/** One entry of the journal. */
export const JournalEntry = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  at: Type.String({ description: 'ISO 8601' }),
  who: Type.Union(
    [
      Type.Literal('board'),
      Type.Literal('registration'),
      Type.Literal('anonymous'),
      Type.Literal('machine'),
    ],
    { description: "the token presented, or machine: the target machine's own report said it" },
  ),
  actor: Type.Object(
    {
      kind: Type.Union([
        Type.Literal('person'),
        Type.Literal('token'),
        Type.Literal('board_token'),
        Type.Literal('machine'),
        Type.Literal('mcp'),
        Type.Literal('anonymous'),
      ]),
      name: Type.String(),
    },
    {
      description:
        'who did it (the audit): a person, an API token (its name), the board token, a machine, ' +
        'MCP (with the name of the credential it came with), or anonymous (no credential accepted)',
    },
  ),
  op: Type.String({
    description:
      'do, forget, report, auth, announce, expire, notify, silence, enroll, ack, update, labels',
  }),
  target: Type.String({
    description: 'machine, machine/what/action, machine/session (ack), or (notify) a channel name',
  }),
  outcome: Type.String({
    description:
      'done, failed, refused, queued, delivered, expired, forgotten, announced, silenced, unsilenced, enrolled, acknowledged, updated, rolled_back or labeled',
  }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status, if any' }),
  detail: Type.String(),
  board: Type.Optional(Type.String({ description: 'the board (board_id) that wrote the entry' })),
});
export type JournalEntry = Static<typeof JournalEntry>;
/** The specification's word for the credential an entry came with. */
export type WhoWord = JournalEntry['who'];
/** Who did what a journal entry says (the audit). */
export type ActorRef = JournalEntry['actor'];
export type ActorKind = ActorRef['kind'];

/** Who did something: the specification's word and the audit's actor, journaled together. */
export interface Who {
  readonly word: WhoWord;
  readonly actor: ActorRef;
}

export const JournalPage = Type.Object({ entries: Type.Array(JournalEntry) });

/** The answer to POST /api/do for a machine the board could not reach: the action waits. */
export const QueuedAnswer = Type.Object({
  queued: Type.Literal(true),
  id: Type.String(),
  name: Name,
  what: Name,
  action: Action,
});

/** DELETE /api/machines/{name}. */
export const ForgetAnswer = Type.Object({
  ok: Type.Literal(true),
  name: Name,
  forgotten: Type.Literal(true),
  dropped: Type.Integer({ minimum: 0, description: 'queued actions dropped with it' }),
});

/** POST /api/machines/{name}/enroll. */
export const EnrollAnswer = Type.Object({
  name: Name,
  key: Type.String({ description: 'the fresh key for this name (shown once; the board keeps it)' }),
  command: Type.String({
    description: 'the command to paste on the machine: fetches the agent and enrolls it',
  }),
  agent_sha256: Type.String({ description: 'SHA-256 (hex) of /agent/panoptes-agent.mjs' }),
  update_key: Type.String({
    description:
      "the board's update-signing public key (GET /agent/update-key), which the command pins in the agent's config",
  }),
});

/** GET /api/enrollments: the machines added from the board (never a key). */
export const EnrollmentList = Type.Object({
  enrollments: Type.Array(
    Type.Object({ name: Name, enrolled_at: Type.String({ description: 'ISO 8601' }) }),
  ),
});

export const DoParams = Type.Object({ name: Name, what: Name, action: Action });
export const NameParams = Type.Object({ name: Name });

export const LANGUAGE_CODE_PATTERN = '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$';
export const CodeParams = Type.Object({ code: Type.String({ pattern: LANGUAGE_CODE_PATTERN }) });

export const LanguageItem = Type.Object({
  code: Type.String(),
  name: Type.String(),
  source: Type.Union([Type.Literal('builtin'), Type.Literal('config')]),
});

export const Catalogue = Type.Object(
  {
    code: Type.String(),
    name: Type.String(),
    messages: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: true },
);
export type Catalogue = Static<typeof Catalogue>;

export const Detail = Type.Object({ detail: Type.String() });

export const JOURNAL_LIMIT_MAX = 10_000;
/** The most sessions GET /api/sessions (and MCP's list_sessions) answers at once. */
export const SESSIONS_LIMIT_MAX = 10_000;
export const JournalQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: JOURNAL_LIMIT_MAX, default: 200 })),
  actor: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'only what this actor did: kind:name (token:deploy, person:ada, board_token:board_token) or a kind alone (mcp)',
    }),
  ),
});
