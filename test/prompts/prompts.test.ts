import { describe, expect, it } from 'vitest';
import { buildIntegrationPrompts, type IntegrationPromptInput } from '../../src/prompts/index.ts';
import { resourceName } from '../../src/definition/naming.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { todoScode } from '../support/examples.ts';

const APP_ID = '0190a1b2-0000-7000-8000-000000000001';
const APP_URL = `http://localhost:8080/apps/${APP_ID}`;

function input(definition: AppDefinition, overrides: Partial<IntegrationPromptInput> = {}): IntegrationPromptInput {
  return {
    definition,
    applicationId: APP_ID,
    serverVersion: '1.0.1',
    published: true,
    appUrl: APP_URL,
    openApiUrl: `${APP_URL}/api/v1.0.1/openapi.json`,
    ...overrides,
  };
}

const todo = (): AppDefinition => todoScode() as unknown as AppDefinition;
const KINDS = ['buildFrontend', 'testApi', 'connectToExistingApp'] as const;

describe('integration prompts', () => {
  const prompts = buildIntegrationPrompts(input(todo()));

  it.each(KINDS)('%s names the base URL, auth flow, OpenAPI URL and error format', (kind) => {
    const text = prompts[kind];
    expect(text).toContain(`${APP_URL}/api/v1.0.1`);
    expect(text).toContain('/api/v1.0.1/');
    expect(text).toContain(`${APP_URL}/api/v1.0.1/openapi.json`);
    for (const part of ['/auth/signup', '/auth/login', '/auth/me', 'Authorization: Bearer', 'curl ']) expect(text).toContain(part);
    for (const part of ['application/problem+json', 'errors[].path', '401', '403', '404', '409', '422']) expect(text).toContain(part);
    for (const part of ['limit', 'offset', 'sort', 'filter', '-deadline,title', "record.status == 'open'"]) expect(text).toContain(part);
    expect(text).toContain('one level');
    expect(text).not.toContain('Not served yet');
  });

  it.each(KINDS)('%s describes every resource, field and HTTP trigger of the to-do example', (kind) => {
    const text = prompts[kind];
    const definition = todo();
    for (const model of definition.models) {
      expect(text).toContain(`/${resourceName(model.name)}`);
      for (const field of model.fields) expect(text).toContain(`\`${field.name}\``);
    }
    // Types, required members, enums and defaults of ToDo.
    expect(text).toMatch(/\| `title` \| string \| yes \|/);
    expect(text).toMatch(/\| `description` \| string \| no \|/);
    expect(text).toContain('date-time');
    expect(text).toMatch(/`status`.*one of `open`, `done`; default `open`/);
    expect(text).toMatch(/`user` \| to-one relationship to User/);
    expect(text).toMatch(/`todos` \| to-many relationship to ToDo/);
    // Writing relationships by id / array of ids.
    expect(text).toContain('{"user": "<id>"}');
    expect(text).toContain('{"todos": ["<id>", "<id>"]}');
    // The HTTP trigger: method, path, isPublic, validation, the params it reads.
    for (const trigger of definition.triggers) {
      if (trigger.trigger.type !== 'http') continue;
      expect(text).toContain(`${trigger.trigger.method} ${trigger.trigger.path}`);
      expect(text).toContain(`isPublic: ${trigger.isPublic ?? false}`);
      for (const expression of trigger.validation) expect(text).toContain(expression);
    }
    expect(text).toContain('path parameter `id`');
    expect(text).toContain('`todoId` = `request.params.id`');
  });

  it('each prompt asks for its own job', () => {
    expect(prompts.buildFrontend).toMatch(/Build a frontend/);
    expect(prompts.buildFrontend).toContain('aria-live');
    expect(prompts.testApi).toMatch(/end-to-end test suite/);
    expect(prompts.connectToExistingApp).toMatch(/existing frontend/);
    expect(prompts.connectToExistingApp).toContain('| ToDo |');
  });

  it('is deterministic and changes when the definition changes', () => {
    expect(buildIntegrationPrompts(input(todo()))).toEqual(prompts);
    const changed = todo();
    const toDo = changed.models.find((m) => m.name === 'ToDo')!;
    toDo.fields.push({ id: 'urn:svc:edge:todo-priority', name: 'priority', relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', accessControl: { rules: [] } });
    changed.triggers.push({
      trigger: { id: 'urn:svc:trigger:reopen', type: 'http', method: 'PATCH', path: '/toDos/:id/reopen' },
      actionId: 'urn:svc:action:complete-todo',
      initialState: { todoId: 'request.params.id', reason: 'request.body.reason' },
      validation: ["request.body.reason != ''"],
      isPublic: true,
    });
    const next = buildIntegrationPrompts(input(changed));
    for (const kind of KINDS) {
      expect(next[kind]).not.toEqual(prompts[kind]);
      expect(next[kind]).toContain('`priority`');
      expect(next[kind]).toContain('PATCH /toDos/:id/reopen');
      expect(next[kind]).toContain('isPublic: true');
      expect(next[kind]).toContain('body `reason`');
      expect(next[kind]).toContain(`request.body.reason != ''`);
    }
  });

  it('says when it describes a saved definition that is not served', () => {
    const unpublished = buildIntegrationPrompts(input(todo(), { serverVersion: '1.2.0', published: false, openApiUrl: `${APP_URL}/api/v1.2.0/openapi.json` }));
    for (const kind of KINDS) {
      expect(unpublished[kind]).toContain('Not served yet');
      expect(unpublished[kind]).toContain('saved definition');
      expect(unpublished[kind]).toContain('serverVersion `1.2.0`');
      expect(unpublished[kind]).toContain('not published');
      expect(unpublished[kind]).toContain(`${APP_URL}/api/v1.2.0/toDos`);
    }
  });

  it('copes with an application without a user model or triggers', () => {
    const plain = todo();
    plain.triggers = [];
    plain.userModelId = 'urn:svc:model:missing';
    const text = buildIntegrationPrompts(input(plain)).buildFrontend;
    expect(text).toContain('no user model');
    expect(text).toContain('defines no HTTP triggers');
  });
});
