import type { FastifyInstance } from 'fastify';
import { toLabels } from '../../shared/labels.js';
import { Type } from '../../shared/typebox.js';
import type { BoardLabels } from '../domain/labels.js';
import type { Registry } from '../domain/registry.js';
import type { GroupConfig } from '../domain/settings.js';
import { Detail, NameParams } from '../schemas.js';
import { labelIssue } from './label-issue.js';
import { unprocessable } from './selector-query.js';
import { sendAnswer } from './send-answer.js';

const LabelMap = Type.Record(Type.String(), Type.String(), {
  description:
    'key: value; keys 1-63 of a-z 0-9 . _ / -, values empty or 1-63 of A-Z a-z 0-9 . _ -',
});

const LabelsBody = Type.Object(
  { labels: Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 64 }) },
  { additionalProperties: false },
);

const LabelsAnswer = Type.Object({
  name: Type.String(),
  labels: LabelMap,
  board_labels: Type.Array(Type.String(), { description: 'the keys the board set' }),
});

const GroupsAnswer = Type.Object({
  groups: Type.Array(
    Type.Object({
      name: Type.String(),
      selector: Type.String(),
      machines: Type.Integer({ minimum: 0, description: 'how many machines it selects' }),
      up: Type.Integer({ minimum: 0 }),
      down: Type.Integer({ minimum: 0 }),
    }),
  ),
});

/** PUT /api/machines/{name}/labels and GET /api/groups. */
export async function labelRoutes(
  app: FastifyInstance,
  options: { labels: BoardLabels; registry: Registry; groups: () => readonly GroupConfig[] },
): Promise<void> {
  const { labels, registry, groups } = options;

  app.put(
    '/api/machines/:name/labels',
    {
      config: { access: 'admin', machine: 'name' },
      schema: {
        operationId: 'set_machine_labels',
        summary: "Set a machine's board labels (the whole map; {} clears them)",
        description:
          "Board labels win over the agent's on the same key; board.yaml's machines[].labels stay under them. Journaled; shared by every board of the store.",
        params: NameParams,
        body: LabelsBody,
        response: { 200: LabelsAnswer, 404: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const given = (request.body as { labels: Record<string, unknown> }).labels;
      const issue = labelIssue(given, ['body', 'labels']);
      if (issue !== null) return unprocessable(reply, [issue]);
      const answer = await labels.set(request.who, name, toLabels(given as Record<string, string>));
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/api/groups',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'list_groups',
        summary: "The groups (board.yaml's saved selectors) with their machines counted",
        response: { 200: GroupsAnswer },
      },
    },
    async (request) => {
      const { scope } = request.actor;
      const list = groups().map((g) => ({ group: g, machines: 0, up: 0, down: 0 }));
      if (list.length > 0) {
        for (const m of registry.all()) {
          if (!scope.sees(m)) continue;
          for (const row of list) {
            if (!row.group.selector.matches(m.labels, m.name)) continue;
            row.machines += 1;
            if (m.state === 'up') row.up += 1;
            else row.down += 1;
          }
        }
      }
      return {
        groups: list.map(({ group, machines, up, down }) => ({
          name: group.name,
          selector: group.selector.text,
          machines,
          up,
          down,
        })),
      };
    },
  );
}
