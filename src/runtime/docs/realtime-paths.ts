// The realtime transports in a version's OpenAPI document (DESIGN §17; src/realtime/transports.ts):
// `GET /realtime` (Server-Sent Events) and `GET /realtime/ws` (a WebSocket upgrade), the events
// each sends and the messages the socket takes, as component schemas. Neither is a JSON call: both
// carry `x-appbuilder-stream` (`text/event-stream` or `websocket`) so generated clients can tell.
import type { CompiledApp } from '../compiled-app.ts';
import { safeName, schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: schemaRef('Problem') } } });
const object = (properties: Record<string, JsonSchema>, required: string[], description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required,
});
const tags = ['realtime'];
const ACTION = { type: 'string', enum: ['create', 'update', 'delete'] };
const EVENT_ID = { type: 'integer', minimum: 1, description: 'The change\'s number: increasing per application; send the last one seen as Last-Event-ID to resume.' };
const ANYONE = [{}, { endUser: [] }, { builderBearer: [], apiClient: [] }];

function parameters(app: CompiledApp, required: boolean): JsonSchema[] {
  const resources = app.models.map((m) => m.resource);
  return [
    {
      name: 'subscribe',
      in: 'query',
      required,
      schema: { type: 'string' },
      example: resources.length > 1 ? `${resources[0]},${resources[1]}/{id}` : `${resources[0] ?? 'resource'}`,
      description:
        `Comma-separated topics: a resource (every change of it the caller may read) or \`resource/{id}\` (one record). Resources of this version: ${resources.map((r) => `\`${r}\``).join(', ')}. ` +
        'At most APPBUILDER_REALTIME_MAX_SUBSCRIPTIONS topics per connection (default 100; 429 beyond); an unknown resource or a bad id is 400.',
    },
    {
      name: 'token',
      in: 'query',
      schema: { type: 'string' },
      description: 'The end user\'s access token, for clients that cannot set headers (`EventSource`, the browser\'s `WebSocket`); never logged. Otherwise `Authorization: Bearer`.',
    },
    { name: 'lastEventId', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'Resume after this event (as the `Last-Event-ID` header).' },
    {
      name: 'Last-Event-ID',
      in: 'header',
      schema: { type: 'integer', minimum: 0 },
      description:
        'Resume: the changes after this event that the caller may read are sent first, in order. Past APPBUILDER_REALTIME_RETENTION seconds (default 300) a `reset` is sent instead: reload, then follow the stream. `EventSource` sends it by itself when it reconnects.',
    },
  ];
}

const COMMON =
  'Each change is judged as a read by this caller: `record` is exactly what `GET /{resource}/{id}` would answer them (read rule and field rules applied; relationships as there). ' +
  'A record that stops being readable to the caller arrives as a `delete` carrying `{id}`. Changes come from committed transactions only (an outbox row written with the change): a rolled-back write is never announced. ' +
  'Open connections (SSE and WebSocket together): at most APPBUILDER_REALTIME_MAX_CONNECTIONS per end user (default 10), APPBUILDER_REALTIME_MAX_PER_ADDRESS per client address, an IPv6 /64 counting as one (default 100), ' +
  'and APPBUILDER_REALTIME_MAX_PER_APP per application (default 10000); beyond, 429 with Retry-After. Opening one counts in the app rate limit like any request. A subscriber whose token expires or is revoked is disconnected; one that reads too slowly ' +
  '(more than APPBUILDER_REALTIME_MAX_BUFFER bytes unsent, default 1 MiB) is dropped: reconnect with the last event id.';

const ERRORS = {
  400: problem('No topic, an unknown resource, a bad id, or a Last-Event-ID that is not an event id; each error names the parameter.'),
  401: problem('The token is not valid for this application (expired, revoked, or another application\'s).'),
  404: problem('This version is not served.'),
  429: problem('Too many topics for one connection, or too many open connections for this end user, address or application, or too many requests; see Retry-After.'),
};

/** One event of the stream (Server-Sent Events, WHATWG HTML §9.2): its `id:`, `event:` and `data:` lines. */
const SSE_EVENT: JsonSchema = object(
  {
    id: EVENT_ID,
    event: { type: 'string', enum: ['create', 'update', 'delete', 'reset', 'close'] },
    data: { oneOf: [schemaRef('RealtimeChange'), schemaRef('RealtimeNotice')], description: 'One line of JSON: a RealtimeChange, or for `reset` and `close` a RealtimeNotice.' },
  },
  ['event', 'data'],
  'One event of the `text/event-stream` (its fields as lines, then an empty line); `id` on changes only.',
);

const SSE_EXAMPLE = ': connected\n\nid: 42\nevent: create\ndata: {"resource":"…","action":"create","record":{"id":"…"}}\n\n: ping\n\n';

function paths(app: CompiledApp): Record<string, PathItem> {
  return {
    '/realtime': {
      get: {
        operationId: 'subscribeToChanges',
        summary: 'Follow changes as Server-Sent Events',
        description:
          'A `text/event-stream` that stays open. Events: `create`, `update`, `delete` (`id:` the change\'s number, `data:` a RealtimeChange), `reset` (data: a RealtimeNotice; the events since Last-Event-ID are past the retention: reload), ' +
          '`close` (data: a RealtimeNotice; the server ends the stream, e.g. the token expired). Comments: `: connected` at once, `: ping` every APPBUILDER_REALTIME_PING_MS ms (default 25000). ' +
          COMMON,
        tags,
        security: ANYONE,
        parameters: parameters(app, true),
        'x-appbuilder-stream': 'text/event-stream',
        'x-appbuilder-events': { create: schemaRef('RealtimeChange'), update: schemaRef('RealtimeChange'), delete: schemaRef('RealtimeChange'), reset: schemaRef('RealtimeNotice'), close: schemaRef('RealtimeNotice') },
        responses: {
          200: {
            description: `The stream of events; each event's \`data\` is one line of JSON (RealtimeChange, or RealtimeNotice for \`reset\` and \`close\`):\n\n\`\`\`\n${SSE_EXAMPLE}\`\`\``,
            content: { 'text/event-stream': { schema: SSE_EVENT } },
          },
          ...ERRORS,
        },
      },
    },
    '/realtime/ws': {
      get: {
        operationId: 'subscribeToChangesOverWebSocket',
        summary: 'Follow changes over a WebSocket',
        description:
          'Upgrade to a WebSocket (`ws:`/`wss:`; refusals are answered before the upgrade, as problems). Send RealtimeCommand messages (`{"type":"subscribe","topics":[…]}`, `{"type":"unsubscribe","topics":[…]}`) at any time; ' +
          'the socket answers RealtimeReply (`subscribed`/`unsubscribed` with the topics now followed, or `error` with a status and detail) and sends each change as a RealtimeMessage (a RealtimeChange with its `id`), ' +
          '`{"type":"reset"}` as the SSE `reset`. Topics may also be given at once with `subscribe`. Pings are WebSocket pings. Closed with code 4401 when the token expires or is revoked. ' +
          COMMON,
        tags,
        security: ANYONE,
        parameters: parameters(app, false),
        'x-appbuilder-stream': 'websocket',
        'x-appbuilder-messages': { send: schemaRef('RealtimeCommand'), receive: { oneOf: [schemaRef('RealtimeMessage'), schemaRef('RealtimeReply')] } },
        responses: {
          101: { description: 'Switching Protocols: the WebSocket is open; messages are JSON text frames (RealtimeCommand in, RealtimeMessage and RealtimeReply out).' },
          ...ERRORS,
          426: problem('Not a WebSocket upgrade request (`Upgrade: websocket` is answered with it).'),
        },
      },
    },
  };
}

function schemas(app: CompiledApp): Record<string, JsonSchema> {
  const deleted = object({ id: { type: 'string', format: 'uuid' } }, ['id'], 'A delete (or a record the caller may no longer read): its id alone.');
  const record = { anyOf: [...app.models.map((m) => schemaRef(safeName(m.name))), deleted], description: 'As `GET /{resource}/{id}` answers the caller; a delete carries `{id}`.' };
  const resource = { type: 'string', enum: app.models.map((m) => m.resource) };
  return {
    RealtimeChange: object({ resource, action: ACTION, record }, ['resource', 'action', 'record'], 'The `data` of an SSE `create`, `update` or `delete` event.'),
    RealtimeMessage: object({ id: EVENT_ID, resource, action: ACTION, record }, ['id', 'resource', 'action', 'record'], 'A change over the WebSocket.'),
    RealtimeNotice: object({ reason: { type: 'string' } }, ['reason'], 'The `data` of an SSE `reset` or `close` event.'),
    RealtimeCommand: object(
      { type: { type: 'string', enum: ['subscribe', 'unsubscribe'] }, topics: { type: 'array', items: { type: 'string' }, description: 'Topics as in `subscribe`.' } },
      ['type', 'topics'],
      'A message to the WebSocket.',
    ),
    RealtimeReply: object(
      {
        type: { type: 'string', enum: ['subscribed', 'unsubscribed', 'error', 'reset'] },
        topics: { type: 'array', items: { type: 'string' }, description: 'The topics followed now (subscribed, unsubscribed).' },
        status: { type: 'integer', description: 'error: 400, or 429 past the topics limit.' },
        detail: { type: 'string' },
        errors: { type: 'array', items: object({ path: { type: 'string' }, message: { type: 'string' } }, ['path', 'message']) },
      },
      ['type'],
      'What the WebSocket answers a RealtimeCommand with, and `reset`.',
    ),
  };
}

/** Adds both transports (unless the app's own routes hold their paths) and the schemas of their messages; whether any was added. */
export function addRealtimePaths(app: CompiledApp, document: { paths: Record<string, PathItem> }, componentSchemas: Record<string, JsonSchema>): boolean {
  if (app.models.length === 0) return false;
  let added = false;
  for (const [path, item] of Object.entries(paths(app))) {
    if (document.paths[path]) continue;
    document.paths[path] = item;
    added = true;
  }
  if (added) Object.assign(componentSchemas, schemas(app));
  return added;
}
