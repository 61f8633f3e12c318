/**
 * Integration prompts (spec endpoint 7): three self-contained Markdown prompts a
 * builder hands to a coding assistant. Pure: the same input gives the same text.
 */
import type { AppDefinition } from '../definition/schema.ts';
import { describeApi, type ApiDescription } from './api-description.ts';
import { apiReference, statusSection, type PromptContext } from './reference.ts';

export { describeApi, type ApiDescription, type ApiField, type ApiResource, type ApiTrigger } from './api-description.ts';

export interface IntegrationPrompts {
  buildFrontend: string;
  testApi: string;
  connectToExistingApp: string;
}

export interface IntegrationPromptInput {
  definition: AppDefinition;
  applicationId: string;
  /** The version described: the latest published one, or the saved one when none is published. */
  serverVersion: string;
  /** Whether `serverVersion` is served; false: the prompts say the API is not served yet. */
  published: boolean;
  /** `{app_url}`, e.g. `http://localhost:8080/apps/{applicationId}`. */
  appUrl: string;
  openApiUrl: string;
  /** The application's name; defaults to the definition's overview name or appId. */
  appName?: string;
}

function header(title: string, ctx: PromptContext): string {
  const { api } = ctx;
  return [`# ${title}`, '', statusSection(ctx), '', `**Application:** ${api.appName}. ${api.appDescription}`.trim()].join('\n');
}

function resourceList(api: ApiDescription): string {
  return api.resources.map((r) => `\`${r.resource}\` (${r.name})`).join(', ');
}

function buildFrontend(ctx: PromptContext): string {
  const { api } = ctx;
  const task = [
    '## Your task',
    '',
    `Build a web frontend for this application on top of its existing HTTP API (described completely below). Do not build or mock a backend: every piece of data comes from \`${ctx.apiBase}\`.`,
    '',
    '1. **Configuration.** Keep the API base URL in exactly one configuration value (default: `' + ctx.apiBase + '`).',
    api.auth
      ? `2. **Accounts.** Sign-up (the ${api.auth.userModelName} fields plus password), log-in and log-out. Keep the token (e.g. in \`localStorage\`), send it as \`Authorization: Bearer <token>\`, show who is signed in, and on any \`401\` send the user to the log-in page.`
      : '2. **Accounts.** The application has no user model: no log-in is needed.',
    `3. **One area per resource** (${resourceList(api)}): a list page with paging (\`limit\`/\`offset\`, showing \`total\`), sorting by clicking column headers (\`sort\`), and a filter box (\`filter\`, a CEL expression); a detail page that shows related records with links; create and edit forms; delete with a confirmation.`,
    '4. **Forms follow the field types:** date / datetime-local / time pickers, number inputs, checkboxes for booleans, a `<select>` for enums (the allowed values below), a `<select>` loaded from the related resource for to-one relationships and a multi-select for to-many ones, required marks and the `required` attribute for required fields, defaults pre-filled on create, computed fields read-only.',
    '5. **Errors:** show `detail` in a message area; for `422` (and `409`) show each `errors[].message` next to the field named by its `path`; for `403` say the action is not allowed; for `404` say the record does not exist.',
    '6. **Accessibility and layout:** labels bound to every input, real buttons and links, visible keyboard focus, an `aria-live` region for messages, and a layout that works on a phone and a desktop.',
    ...(api.triggers.length > 0 ? ['7. **Custom endpoints:** offer each HTTP trigger below where it fits (e.g. a button on the record it acts on).'] : []),
    '',
    'Deliver the complete source with a short README (how to configure the base URL, run and build it). Note that the API is on another origin than a locally served frontend: the API must allow it (CORS) or the frontend must be served behind the same origin (e.g. a dev-server proxy).',
  ];
  return [header(`Build a frontend for "${api.appName}"`, ctx), task.join('\n'), '# API reference', apiReference(ctx)].join('\n\n');
}

function testApi(ctx: PromptContext): string {
  const { api } = ctx;
  const task = [
    '## Your task',
    '',
    `Write an end-to-end test suite that exercises the running API at \`${ctx.apiBase}\` over HTTP (no mocks), configurable by an environment variable for the base URL. Each test creates its own data (unique emails) so tests are independent and can run repeatedly.`,
    '',
    'Cover at least:',
    '',
    ...(api.auth
      ? [
          `- **Auth:** sign-up answers \`201\` with \`{token, user}\`; a second sign-up with the same email answers \`409\`; log-in with the right password works, with a wrong one answers \`401\`; \`GET /auth/me\` returns the user with a token and \`401\` without.`,
        ]
      : []),
    `- **Every resource** (${resourceList(api)}): create → read → list (it appears, \`total\` counts it) → update (\`PATCH\`) → delete (\`204\`, then \`GET\` answers \`404\`).`,
    '- **Validation:** omitting each required field (without a default) answers `422` with an `errors[].path` naming it; a value outside an enum answers `422`; wrong types answer `422`; defaults are applied when a field is omitted.',
    '- **Relationships:** writing by id (and by array of ids for to-many fields), reading back the expanded record one level deep (nested relationships are ids), clearing an optional to-one with `null`, an unknown id answers `422`.',
    '- **Access rules:** with two users, each sees and changes only what the rules below allow; anonymous requests are refused or see nothing, as the rules say.',
    '- **Lists:** `limit`, `offset`, `total`; `sort` ascending and descending (`-field`) on several fields; `filter` with a CEL expression; a malformed filter answers `400`; `limit` above 1000 is refused.',
    ...(api.triggers.length > 0
      ? ['- **HTTP triggers:** each route below, its happy path, its validation failures (`422`), and `401` without a token when `isPublic` is false.']
      : []),
    '- **Error format:** every error response is `application/problem+json` with `type`, `title`, `status`, `detail` and `errors`.',
    '',
    'Deliver the suite with instructions to run it, and list any behaviour that differs from this description as a failing test with a clear message.',
  ];
  return [header(`Write an end-to-end test suite for the "${api.appName}" API`, ctx), task.join('\n'), '# API reference', apiReference(ctx)].join('\n\n');
}

function connectToExistingApp(ctx: PromptContext): string {
  const { api } = ctx;
  const mapping = api.resources.map((r) => `| ${r.name} | \`${ctx.apiBase}/${r.resource}\` | ${r.fields.map((f) => `\`${f.name}\``).join(', ')} |`);
  const task = [
    '## Your task',
    '',
    `An existing frontend application should use this API (\`${ctx.apiBase}\`) as its data layer instead of what it uses today (its own backend, local state, mocks or another service). Keep the existing UI; replace only how data is loaded and saved.`,
    '',
    '1. **Inventory.** Find every place the app reads or writes data (fetch/axios calls, stores, services, mock data). List them with the entity each one handles.',
    '2. **Map the entities** to the resources below (table): names, field names and types, ids (UUID strings), relationships (the API expands one level on read and takes ids on write). Note every field the UI needs that the API lacks, and every required API field the UI does not collect yet.',
    '3. **One API client module** holding the base URL (one configuration value), the token, JSON handling and error handling (`application/problem+json`). Every data access goes through it.',
    ...(api.auth
      ? ['4. **Authentication:** replace the current log-in with `POST /auth/login` / `POST /auth/signup`; store the token, send `Authorization: Bearer <token>`, and on `401` clear it and show the log-in.']
      : ['4. **Authentication:** the application has no user model; remove any log-in the data layer required.']),
    '5. **Replace reads and writes** one entity at a time: lists use `limit`/`offset`/`sort`/`filter` on the server instead of loading everything; forms send only the API fields with the right types (e.g. ISO 8601 date-times, relationship ids) and display `422` `errors[].path` messages next to their fields.',
    '6. **Adapters, not rewrites:** where the UI expects another shape, convert in the client module (e.g. an embedded related object → its id for a form) rather than changing components.',
    '7. **Verify:** run the app against the API, exercise every screen that touches data, and remove the old data layer (dead endpoints, mocks) once nothing uses it.',
    '',
    '| Entity | Endpoint | Fields |',
    '|---|---|---|',
    ...mapping,
    '',
    'Deliver the changes as a small series of reviewable steps, each leaving the app working. The API may be on another origin than the app: it must allow it (CORS) or the app must proxy it.',
  ];
  return [header(`Connect an existing frontend to the "${api.appName}" API`, ctx), task.join('\n'), '# API reference', apiReference(ctx)].join('\n\n');
}

export function buildIntegrationPrompts(input: IntegrationPromptInput): IntegrationPrompts {
  const appUrl = input.appUrl.replace(/\/+$/, '');
  const ctx: PromptContext = {
    api: describeApi(input.definition, input.appName),
    applicationId: input.applicationId,
    serverVersion: input.serverVersion,
    published: input.published,
    appUrl,
    openApiUrl: input.openApiUrl,
    apiBase: `${appUrl}/api/v${input.serverVersion}`,
  };
  return { buildFrontend: buildFrontend(ctx), testApi: testApi(ctx), connectToExistingApp: connectToExistingApp(ctx) };
}
