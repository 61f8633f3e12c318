import { todoScode } from './examples.ts';

/**
 * Valid request bodies for the definition-editing operations of the management API, by
 * operationId, on an application made from the to-do example: the walks over the OpenAPI
 * document send these so that a refusal cannot be a 400 about the body.
 */
export function definitionEditBodies(projectId: string): Record<string, unknown> {
  const example = todoScode() as unknown as { actions: Array<Record<string, unknown>>; triggers: unknown[]; requirements: unknown[] };
  const { id: _id, ...completeTodo } = example.actions[0];
  return {
    createApplication: { projectId, name: 'Walk app', scode: todoScode() },
    replaceApplicationDefinition: { ...todoScode(), appDescription: 'Replaced' },
    createModel: { name: 'Tag' },
    updateModel: { name: 'Task' },
    createField: { name: 'note', to: 'p_TEXT' },
    updateField: { name: 'headline' },
    createAction: {
      id: 'urn:svc:action:count-todos',
      startEffectId: 'count',
      effects: [{ actionEffectId: 'count', effect: 'data.count', params: { model: 'ToDo' } }],
      bindReturnValue: 'results.count',
    },
    updateAction: completeTodo,
    modifyEffects: [{ index: 0, modification: 'insert', effect: { actionEffectId: 'note', effect: 'flow.set', params: { name: 'a', value: 'b' } } }],
    createTrigger: {
      trigger: { id: 'urn:svc:trigger:todo-updated', type: 'event', eventName: 'ToDo.updated', payload: {} },
      actionId: 'urn:svc:action:welcome',
      initialState: {},
      validation: [],
    },
    updateTrigger: example.triggers[0],
    replaceRequirements: example.requirements,
    replacePersonas: [{ name: 'Member' }],
    replaceAppOverview: null,
    replaceAppDraft: null,
    replaceDomainModel: null,
    publishApplication: {},
    unpublishApplication: {},
    explainRequest: { as: 'anonymous', request: { method: 'GET', path: '/toDos' } },
  };
}
