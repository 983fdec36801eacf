import openapiTS from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../../harness/processes.js';
import { Recorder, writeBoardConfig } from '../helpers/fleet.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'openapi-board-token-0123456789';

/** The operations of the FastAPI service, named as FastAPI's generate_unique_id names them. */
const OPERATIONS: Record<string, string> = {
  'GET /api/health': 'health_api_health_get',
  'GET /api/board': 'get_board_api_board_get',
  'GET /api/cluster': 'get_cluster_api_cluster_get',
  'POST /api/do/{name}/{what}/{action}': 'do_action_api_do__name___what___action__post',
  'GET /api/journal': 'get_journal_api_journal_get',
  'GET /api/language/{code}': 'get_language_api_language__code__get',
  'GET /api/languages': 'get_languages_api_languages_get',
  'DELETE /api/machines/{name}': 'delete_machine_api_machines__name__delete',
  'POST /api/report': 'report_api_report_post',
  'GET /api/openapi.json': 'openapi_api_openapi_json_get',
  // Not in the FastAPI service of the comparison: named by the same formula.
  'GET /api/machines/{name}/history': 'get_history_api_machines__name__history_get',
  'GET /api/machines/{name}/events': 'get_events_api_machines__name__events_get',
  'GET /api/uptime': 'get_uptime_api_uptime_get',
  'GET /api/notify': 'get_notify_api_notify_get',
  'POST /api/notify/test': 'test_notify_api_notify_test_post',
  'POST /api/machines/{name}/silence': 'silence_machine_api_machines__name__silence_post',
  'DELETE /api/machines/{name}/silence': 'end_silence_api_machines__name__silence_delete',
  'GET /metrics': 'metrics_metrics_get',
  // Labels and groups.
  'PUT /api/machines/{name}/labels': 'set_machine_labels_api_machines__name__labels_put',
  'GET /api/groups': 'list_groups_api_groups_get',
  // Checks.
  'GET /api/checks': 'list_checks_api_checks_get',
  'GET /api/checks/mine': 'my_checks_api_checks_mine_get',
  'GET /api/checks/{name}/history': 'get_check_history_api_checks__name__history_get',
  'GET /api/me': 'get_me_api_me_get',
  'GET /auth/methods': 'sign_in_methods_auth_methods_get',
  'POST /auth/logout': 'sign_out_auth_logout_post',
  'POST /api/tokens': 'create_token_api_tokens_post',
  'GET /api/tokens': 'list_tokens_api_tokens_get',
  'DELETE /api/tokens/{id}': 'delete_token_api_tokens__id__delete',
  'GET /api/people': 'list_people_api_people_get',
  'POST /api/people': 'add_person_api_people_post',
  'PUT /api/people/{name}': 'set_person_bindings_api_people__name__put',
  'DELETE /api/people/{name}': 'remove_person_api_people__name__delete',
  'POST /api/people/{name}/link': 'make_person_link_api_people__name__link_post',
  'POST /auth/password': 'sign_in_password_auth_password_post',
  'POST /auth/passkey/options': 'passkey_sign_in_options_auth_passkey_options_post',
  'POST /auth/passkey': 'sign_in_passkey_auth_passkey_post',
  'POST /auth/signup': 'sign_up_link_auth_signup_post',
  'POST /auth/signup/password': 'sign_up_password_auth_signup_password_post',
  'POST /auth/signup/passkey/options': 'sign_up_passkey_options_auth_signup_passkey_options_post',
  'POST /auth/signup/passkey': 'sign_up_passkey_auth_signup_passkey_post',
  'GET /api/silences': 'list_selector_silences_api_silences_get',
  'POST /api/silences': 'silence_selector_api_silences_post',
  'DELETE /api/silences/{id}': 'end_selector_silence_api_silences__id__delete',
  // Adding a machine from the board.
  'POST /api/machines/{name}/enroll': 'enroll_machine_api_machines__name__enroll_post',
  'GET /api/enrollments': 'list_enrollments_api_enrollments_get',
  'GET /agent/{file}': 'get_agent_file_agent__file__get',
  'GET /agent/SHA256SUMS': 'get_agent_sums_agent_SHA256SUMS_get',
  'GET /agent/SHA256SUMS.sig': 'get_agent_sums_signature_agent_SHA256SUMS_sig_get',
  'GET /agent/update-key': 'get_update_key_agent_update_key_get',
  // Updates from the board.
  'POST /api/machines/{name}/update': 'update_agent_api_machines__name__update_post',
  'POST /api/machines/update': 'update_all_agents_api_machines_update_post',
  // The attention inbox.
  'GET /api/sessions': 'list_sessions_api_sessions_get',
  'POST /api/sessions/{machine}/ack':
    'acknowledge_session_by_query_api_sessions__machine__ack_post',
  'POST /api/sessions/{machine}/{session}/ack':
    'acknowledge_session_api_sessions__machine___session__ack_post',
  // Web Push.
  'GET /api/push/key': 'get_push_key_api_push_key_get',
  'GET /api/push/{token}': 'push_beat_api_push__token__get',
  'POST /api/push/{token}': 'push_beat_post_api_push__token__post',
  'POST /api/push/subscriptions': 'subscribe_push_api_push_subscriptions_post',
  'DELETE /api/push/subscriptions/{id}': 'unsubscribe_push_api_push_subscriptions__id__delete',
  'POST /api/push/subscriptions/{id}/renew': 'renew_push_api_push_subscriptions__id__renew_post',
};

type Operation = {
  operationId?: string;
  security?: unknown;
  parameters?: { name: string; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
  security?: unknown;
};

describe('the OpenAPI document gives generated clients FastAPI’s names and types', () => {
  const dir = tempDir();
  const http = new Recorder();
  let board: RunningProgram;
  let doc: Doc;
  let generated: string;

  beforeAll(async () => {
    board = await startBoard(writeBoardConfig(dir, 'b', { board_token: TOKEN }));
    doc = (await http.call(`${board.url}/api/openapi.json`, { token: TOKEN })).json as Doc;
    generated = await openapiTS(doc as never);
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('every operation has FastAPI’s operationId, and the generator makes it a method name', () => {
    const found: Record<string, string | undefined> = {};
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        found[`${method.toUpperCase()} ${path}`] = operation.operationId;
      }
    }
    expect(found).toEqual(OPERATIONS);
    for (const id of Object.values(OPERATIONS)) {
      expect(generated).toContain(`operations["${id}"]`);
      expect(generated).toMatch(new RegExp(`\\n  ${id}: \\{`));
    }
  });

  it('types: ActionEnum and Report are named components; parameters carry FastAPI titles', () => {
    expect(doc.components.schemas.ActionEnum).toEqual({
      title: 'ActionEnum',
      type: 'string',
      enum: ['start', 'stop'],
    });
    expect(generated).toMatch(/ActionEnum: "start" \| "stop";/);
    expect(generated).toMatch(/\n {4}Report: \{/);
    const doAction = doc.paths['/api/do/{name}/{what}/{action}']?.post;
    expect(doAction?.parameters?.map((p) => [p.name, p.schema.title ?? p.schema.$ref])).toEqual([
      ['name', 'Name'],
      ['what', 'What'],
      ['action', '#/components/schemas/ActionEnum'],
    ]);
    expect(
      doc.paths['/api/report']?.post?.requestBody?.content['application/json']?.schema,
    ).toEqual({
      $ref: '#/components/schemas/Report',
    });
    const limit = doc.paths['/api/journal']?.get?.parameters?.[0]?.schema;
    expect(limit).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      default: 200,
      title: 'Limit',
    });
    expect(generated).toMatch(/limit\?: number;/);
  });

  it('security is per operation, as FastAPI writes it; health and the agent files are open', () => {
    expect(doc.security).toBeUndefined();
    // The push renew route takes the old subscription's auth secret instead of a token.
    const open = [
      '/api/health',
      '/agent/{file}',
      '/agent/SHA256SUMS',
      '/agent/SHA256SUMS.sig',
      '/agent/update-key',
      '/api/push/subscriptions/{id}/renew',
      // A push check's beat: its token, in the path, is the credential.
      '/api/push/{token}',
      // Signing in: before anyone is known.
      '/auth/methods',
      '/auth/password',
      '/auth/passkey/options',
      '/auth/passkey',
      '/auth/signup',
      '/auth/signup/password',
      '/auth/signup/passkey/options',
      '/auth/signup/passkey',
    ];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        if (open.includes(path)) expect(operation.security).toBeUndefined();
        else expect(operation.security).toEqual([{ HTTPBearer: [] }, { APIKeyQuery: [] }]);
      }
    }
  });

  it('every status the board answers is documented; /api/live is a WebSocket, not an operation', () => {
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    expect(statuses('/api/machines/{name}', 'delete')).toEqual(
      ['200', '307', '401', '403', '404', '405', '409', '413', '422', '429', '503'].sort(),
    );
    expect(statuses('/api/board', 'get')).toEqual(['200', '304', '401', '403', '422', '429']);
    expect(statuses('/api/do/{name}/{what}/{action}', 'post')).toEqual(
      [
        ...['200', '307', '401', '403', '404', '409', '413', '422', '429', '502', '503', '504'],
        'default',
      ].sort(),
    );
    expect(statuses('/api/report', 'post')).toEqual(
      ['200', '400', '401', '403', '409', '413', '422', '429'].sort(),
    );
    // Its body (the dialog's labels) is optional; one that is not UTF-8 is a 400, as for any body.
    expect(statuses('/api/machines/{name}/enroll', 'post')).toEqual(
      ['200', '400', '401', '403', '404', '409', '413', '422', '429', '503'].sort(),
    );
    expect(doc.paths['/api/board']?.get?.responses['200']?.description).toBe('Successful Response');
    expect(doc.paths['/api/live']).toBeUndefined();
    expect(JSON.stringify(doc)).toContain('/api/live is a WebSocket');
  });
});
