// The effect modules by name. Adding an effect = its params schema in the catalogue plus one module here.
import type { EffectModule } from '../types.ts';
import { dataCount } from './data-count.ts';
import { dataCreate } from './data-create.ts';
import { dataDelete } from './data-delete.ts';
import { dataFind } from './data-find.ts';
import { dataGet } from './data-get.ts';
import { dataUpdate } from './data-update.ts';
import { emailSend } from './email-send.ts';
import { eventEmit } from './event-emit.ts';
import { flowFail } from './flow-fail.ts';
import { flowForEach } from './flow-for-each.ts';
import { flowIf } from './flow-if.ts';
import { flowReturn } from './flow-return.ts';
import { flowSet } from './flow-set.ts';
import { httpRequest } from './http-request.ts';

const MODULES: EffectModule[] = [
  dataGet,
  dataFind,
  dataCount,
  dataCreate,
  dataUpdate,
  dataDelete,
  flowIf,
  flowForEach,
  flowSet,
  flowFail,
  flowReturn,
  httpRequest,
  eventEmit,
  emailSend,
];

export const EFFECTS: ReadonlyMap<string, EffectModule> = new Map(MODULES.map((m) => [m.name, m]));
