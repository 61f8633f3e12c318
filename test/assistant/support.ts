import type { ApiClient } from '../support/client.ts';
import type { Operation } from '../../src/assistant/operations.ts';
import type { AssistantMessage } from '../../src/assistant/service.ts';

/** A message as the assistant routes answer it. */
export type MessageReply = AssistantMessage;

/**
 * Sends one operation as the management API's own request (the route each operation
 * stands for), so a test can compare an applied proposal with the same edits made by hand.
 */
export async function sendThroughManagementApi(api: ApiClient, applicationId: string, op: Operation): Promise<number> {
  const app = `/v1/applications/${applicationId}`;
  const reply = await (() => {
    switch (op.op) {
      case 'addModel':
        return api.post(`${app}/models`, op.model);
      case 'renameModel':
        return api.patch(`${app}/models/${op.modelId}`, { name: op.name });
      case 'removeModel':
        return api.delete(`${app}/models/${op.modelId}`);
      case 'setAccessRules':
        return api.patch(`${app}/models/${op.modelId}`, { accessControl: op.accessControl });
      case 'setIndexes':
        return api.patch(`${app}/models/${op.modelId}`, { indexes: op.indexes });
      case 'addField':
        return api.post(`${app}/models/${op.modelId}/fields`, op.field);
      case 'updateField':
        return api.patch(`${app}/models/${op.modelId}/fields/${op.fieldId}`, op.changes);
      case 'renameField':
        return api.patch(`${app}/models/${op.modelId}/fields/${op.fieldId}`, { name: op.name });
      case 'removeField':
        return api.delete(`${app}/models/${op.modelId}/fields/${op.fieldId}`);
      case 'addAction':
        return api.post(`${app}/actions`, op.action);
      case 'insertEffects':
        return api.post(`${app}/actions/${op.actionId}/effects`, op.modifications);
      case 'addTrigger':
        return api.post(`${app}/triggers`, op.trigger);
      case 'removeTrigger':
        return api.delete(`${app}/triggers/${op.triggerId}`);
      case 'setVariable':
        return api.put(`${app}/variables/${op.name}`, { value: op.value });
    }
  })();
  return reply.status;
}
