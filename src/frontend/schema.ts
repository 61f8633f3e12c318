/**
 * The JSON description of an application that the generated frontend runs on
 * (`schema.js`): models, fields with their input kinds, navigation and auth.
 * The browser code is generic; everything specific to an app is here.
 */
import type { AppDefinition, EnumValue } from '../definition/schema.ts';
import { describeApi, type ApiField, type ApiResource } from '../prompts/api-description.ts';

/** How a field is edited in a form. */
export type InputKind =
  | 'text'
  | 'textarea'
  | 'number'
  | 'rating'
  | 'checkbox'
  | 'date'
  | 'datetime'
  | 'time'
  | 'url'
  | 'file'
  | 'tel'
  | 'json'
  | 'currency'
  | 'enum'
  | 'relation'
  | 'lines';

export interface ClientField {
  name: string;
  label: string;
  type: string;
  input: InputKind;
  required: boolean;
  many: boolean;
  readOnly: boolean;
  enum?: EnumValue[];
  default?: unknown;
  /** Related resource for relationships. */
  ref?: string;
  /** Whether the column can be sorted server-side (scalars only). */
  sortable: boolean;
}

export interface ClientModel {
  name: string;
  label: string;
  /** Plural label for lists. */
  plural: string;
  resource: string;
  isUserModel: boolean;
  /** The field shown as a record's name in links and pickers. */
  titleField: string | null;
  fields: ClientField[];
}

export interface ClientNavItem {
  label: string;
  description: string;
  href: string;
}

export interface ClientSchema {
  appName: string;
  description: string;
  serverVersion: string;
  auth: { userResource: string; signupFields: string[]; hasEmail: boolean } | null;
  models: ClientModel[];
  navigation: ClientNavItem[];
  home: string;
}

const LONG_TEXT = /^(description|notes?|body|content|details|summary|comment|text|bio)$/i;

/** `deadlineAt` → `Deadline at`, `first_name` → `First name`. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const FILE_TYPES = new Set(['p_FILE', 'p_IMAGE', 'p_VIDEO']);

function inputKind(field: ApiField): InputKind {
  if (field.relation) return 'relation';
  // Uploaded to the app's POST /files, then sent as the key it answers (DESIGN §6).
  if (!field.enum && FILE_TYPES.has(field.primitive ?? '')) return 'file';
  if (field.enum && field.enum.length > 0) return field.many ? 'lines' : 'enum';
  if (field.many) return field.primitive === 'p_BOOLEAN' || field.primitive === 'p_ADDRESS' || field.primitive === 'p_CURRENCY_AMOUNT' ? 'json' : 'lines';
  switch (field.primitive) {
    case 'p_TEXT':
      return LONG_TEXT.test(field.name) ? 'textarea' : 'text';
    case 'p_NUMBER':
      return 'number';
    case 'p_STAR_RATING':
      return 'rating';
    case 'p_BOOLEAN':
      return 'checkbox';
    case 'p_DATE':
      return 'date';
    case 'p_DATE_TIME':
      return 'datetime';
    case 'p_TIME':
      return 'time';
    case 'p_LINK':
      return 'url';
    case 'p_PHONE_NUMBER':
      return 'tel';
    case 'p_CURRENCY_AMOUNT':
      return 'currency';
    case 'p_ADDRESS':
      return 'json';
    default:
      return 'text';
  }
}

function clientField(field: ApiField): ClientField {
  return {
    name: field.name,
    label: humanize(field.name),
    type: field.relation ? field.relation.modelName : (field.primitive ?? field.to),
    input: inputKind(field),
    // A field with a default expression (`user` → the caller) may be left out on create.
    required: field.required && field.defaultExpression === undefined,
    many: field.many,
    readOnly: field.computed !== undefined,
    ...(field.enum ? { enum: field.enum } : {}),
    ...(field.hasDefault ? { default: field.defaultValue } : {}),
    ...(field.relation ? { ref: field.relation.resource } : {}),
    sortable: !field.many && !field.relation && field.primitive !== 'p_ADDRESS' && field.primitive !== 'p_CURRENCY_AMOUNT',
  };
}

function titleField(resource: ApiResource): string | null {
  const text = resource.fields.filter((f) => f.primitive === 'p_TEXT' && !f.many);
  const preferred = text.find((f) => /^(name|title|label|subject)$/i.test(f.name));
  return (preferred ?? text.find((f) => f.required) ?? text[0])?.name ?? null;
}

const norm = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The model a sitemap node is about: by its route segments first, then by its title. */
function modelForNode(models: ClientModel[], route: string, title: string): ClientModel | undefined {
  const segments = route.split('/').filter((s) => s && !s.startsWith(':')).map(norm);
  for (const segment of segments) {
    const hit = models.find((m) => norm(m.resource) === segment || norm(m.name) === segment);
    if (hit) return hit;
  }
  const words = norm(title);
  return models.find((m) => words.includes(norm(m.resource))) ?? models.find((m) => words.includes(norm(m.name)));
}

/**
 * Navigation: the sitemap's pages without path parameters (those are detail pages,
 * reached from lists), each pointing at the list it is about; then every model no
 * entry reaches, so all data stays reachable. Without a sitemap: one entry per model.
 */
function navigation(definition: AppDefinition, models: ClientModel[]): ClientNavItem[] {
  const items: ClientNavItem[] = [];
  const nodes = definition.appDraft?.sitemap.nodes ?? [];
  for (const node of nodes) {
    if (node.route.includes(':')) continue;
    const title = node.content[0]?.title ?? humanize(node.id);
    const model = modelForNode(models, node.route, `${title} ${node.id}`);
    const href = model ? `#/${model.resource}` : '#/';
    if (items.some((i) => i.href === href)) continue;
    items.push({ label: title, description: node.content[0]?.description ?? '', href });
  }
  for (const model of models) {
    const href = `#/${model.resource}`;
    if (!items.some((i) => i.href === href)) items.push({ label: model.plural, description: '', href });
  }
  return items;
}

export function clientSchema(definition: AppDefinition, serverVersion: string, appName?: string): ClientSchema {
  const api = describeApi(definition, appName);
  const models: ClientModel[] = api.resources.map((r) => ({
    name: r.name,
    label: humanize(r.name),
    plural: humanize(r.resource),
    resource: r.resource,
    isUserModel: r.isUserModel,
    titleField: titleField(r),
    fields: r.fields.map(clientField),
  }));
  const nav = navigation(definition, models);
  return {
    appName: api.appName,
    description: api.appDescription,
    serverVersion,
    auth: api.auth
      ? { userResource: api.auth.userResource, signupFields: api.auth.signupFields.map((f) => f.name), hasEmail: api.auth.hasEmail }
      : null,
    models,
    navigation: nav,
    home: nav[0]?.href ?? '#/',
  };
}
