// The to-do application's models (as in examples/todo.app.json) plus a Product model with numbers,
// ratings and lists, in the minimal shape the expressions module takes.
import type { ExpressionContext, ExpressionDefinition, Scope } from '../../src/expressions/index.ts';

export const TODO = 'urn:svc:model:todo';
export const USER = 'urn:svc:model:user';
export const PRODUCT = 'urn:svc:model:product';

export const definition: ExpressionDefinition = {
  versionKey: 'test-todo@1.0.1',
  userModelId: USER,
  models: [
    {
      id: TODO,
      name: 'ToDo',
      fields: [
        { id: 'urn:svc:edge:todo-title', name: 'title', to: 'p_TEXT', max: 1 },
        { id: 'urn:svc:edge:todo-description', name: 'description', to: 'p_TEXT', max: 1 },
        { id: 'urn:svc:edge:todo-deadline', name: 'deadline', to: 'p_DATE_TIME', max: 1 },
        { id: 'urn:svc:edge:todo-status', name: 'status', to: 'p_TEXT', max: 1 },
        { id: 'urn:svc:edge:todo-user', name: 'user', to: USER, max: 1 },
      ],
    },
    {
      id: USER,
      name: 'User',
      fields: [
        { id: 'urn:svc:edge:user-name', name: 'name', to: 'p_TEXT', max: 1 },
        { id: 'urn:svc:edge:user-email', name: 'email', to: 'p_TEXT', max: 1 },
        { id: 'urn:svc:edge:user-todos', name: 'todos', to: TODO, max: null },
      ],
    },
    {
      id: PRODUCT,
      name: 'Product',
      fields: [
        { id: 'p1', name: 'price', to: 'p_NUMBER', max: 1 },
        { id: 'p2', name: 'rating', to: 'p_STAR_RATING', max: 1 },
        { id: 'p3', name: 'tags', to: 'p_TEXT', max: null },
        { id: 'p4', name: 'inStock', to: 'p_BOOLEAN', max: 1 },
        { id: 'p5', name: 'address', to: 'p_ADDRESS', max: 1 },
        { id: 'p6', name: 'owners', to: USER, max: null },
        { id: 'p7', name: 'releases', to: 'p_DATE_TIME', max: null },
      ],
    },
  ],
};

export function ctx(scope: Scope, modelId?: string): ExpressionContext {
  return { definition, scope, modelId: modelId ?? null };
}

export const todoRule = ctx('rule', TODO);
export const productRule = ctx('rule', PRODUCT);
