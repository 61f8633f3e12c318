/**
 * Merging the drafts of several attachments (DESIGN §13): names normalised (names.ts), the
 * same model from two sources is one model, the same field of it too; a field two sources
 * type differently keeps the first source's type and gives a warning. References between
 * draft models are resolved here, by normalised name; a reference to no model is a warning.
 */
import type { Draft, DraftAction, DraftField, Locator } from './extractors/types.ts';
import { fieldName, freeName, modelName, relationshipFieldName } from './names.ts';

/** Where a produced element came from: one attachment and a place in it. */
export interface Source {
  attachmentId: string;
  locator: Locator;
}

/** Something skipped, guessed or in conflict, and why. */
export interface SpecWarning {
  message: string;
  attachmentId?: string;
  locator?: Locator;
  /** The JSON pointer of the element in `content` the warning is about, when it is there. */
  path?: string;
}

export interface SourcedDraft {
  attachmentId: string;
  /** The attachment's file name, for messages. */
  name: string;
  draft: Draft;
}

/** A draft field after merging: its name, a model `type` and `partner` are the normalised names. */
export interface MergedField extends Omit<DraftField, 'locator'> {
  source: Source;
}

export interface MergedModel {
  name: string;
  fields: MergedField[];
  joinOf?: [string, string];
  source: Source;
}

export interface Merged {
  title?: string;
  description?: string;
  models: MergedModel[];
  actions: Array<DraftAction & { source: Source }>;
  personas: Array<{ name: string; source: Source }>;
  requirements: Array<{ description: string; persona?: string; source: Source }>;
  pages: Array<{ title: string; description?: string; source: Source }>;
  warnings: SpecWarning[];
}

const typeLabel = (type: MergedField['type'], many: boolean) => `${typeof type === 'string' ? type : type.model}${many ? '[]' : ''}`;
const sameType = (a: MergedField, b: MergedField) => typeLabel(a.type, a.many) === typeLabel(b.type, b.many);

/** A draft field's name as a definition writes it (a relationship loses its key suffix). */
function normalisedFieldName(field: DraftField): string {
  return typeof field.type === 'string' ? fieldName(field.name) : relationshipFieldName(field.name);
}

/** A primitive column that only repeats the record's own id: `id`, or `film_id` in `film`. */
function isOwnKey(model: string, field: MergedField): boolean {
  if (typeof field.type !== 'string' || field.many) return false;
  return field.name === 'id' || field.name === `${fieldName(model)}Id`;
}

export function mergeDrafts(drafts: SourcedDraft[]): Merged {
  const merged: Merged = { models: [], actions: [], personas: [], requirements: [], pages: [], warnings: [] };
  const models = new Map<string, MergedModel>();
  // Every draft's own model names, so a reference is resolved before the models are known.
  const known = new Set(drafts.flatMap((d) => d.draft.models.map((m) => modelName(m.name))));

  for (const { attachmentId, name: fileName, draft } of drafts) {
    const at = (locator: Locator): Source => ({ attachmentId, locator });
    const warn = (locator: Locator, message: string) => merged.warnings.push({ attachmentId, locator, message });
    for (const w of draft.warnings) warn(w.locator, w.message);
    merged.title ??= draft.title;
    merged.description ??= draft.description;

    for (const dm of draft.models) {
      const name = modelName(dm.name);
      let model = models.get(name);
      if (!model) {
        model = { name, fields: [], source: at(dm.locator) };
        models.set(name, model);
        merged.models.push(model);
      }
      if (dm.joinOf) model.joinOf ??= [modelName(dm.joinOf[0]), modelName(dm.joinOf[1])];
      // Names this draft gave in this model, to tell a clash within one source from a merge of two.
      const ownNames = new Set<string>();
      for (const df of dm.fields) {
        let type: MergedField['type'];
        if (typeof df.type === 'string') type = df.type;
        else {
          const target = modelName(df.type.model);
          if (!known.has(target)) {
            warn(df.locator, `${name}.${df.name} points at ${df.type.model}, which no attachment describes; the field is left out.`);
            continue;
          }
          type = { model: target };
        }
        let fieldNameHere = normalisedFieldName(df);
        if (ownNames.has(fieldNameHere)) {
          const renamed = freeName(fieldNameHere, new Set(model.fields.map((f) => f.name)));
          warn(df.locator, `${name}.${df.name} gives the field name '${fieldNameHere}' a second time in ${fileName}; it is named '${renamed}'.`);
          fieldNameHere = renamed;
        }
        ownNames.add(fieldNameHere);
        const field: MergedField = {
          name: fieldNameHere,
          type,
          many: df.many,
          required: df.required,
          ...(df.enum ? { enum: df.enum } : {}),
          ...(df.defaultValue !== undefined ? { defaultValue: df.defaultValue } : {}),
          ...(df.partner ? { partner: fieldName(df.partner) } : {}),
          ...(df.writeOnly ? { writeOnly: true } : {}),
          source: at(df.locator),
        };
        if (isOwnKey(name, field)) continue; // every record has its own id
        const existing = model.fields.find((f) => f.name === field.name);
        if (!existing) {
          model.fields.push(field);
          continue;
        }
        if (!sameType(existing, field)) {
          warn(
            df.locator,
            `${name}.${field.name} is ${typeLabel(field.type, field.many)} here but ${typeLabel(existing.type, existing.many)} in another attachment (${existing.source.locator}); the first is kept.`,
          );
        } else if (JSON.stringify(existing.enum ?? null) !== JSON.stringify(field.enum ?? null) && field.enum) {
          warn(df.locator, `${name}.${field.name} lists other values than another attachment (${existing.source.locator}); the first list is kept.`);
        }
        existing.required ||= field.required;
        existing.partner ??= field.partner;
      }
    }
    for (const action of draft.actions) merged.actions.push({ ...action, source: at(action.locator) });
    for (const persona of draft.personas) {
      if (!merged.personas.some((p) => p.name.toLowerCase() === persona.name.toLowerCase())) merged.personas.push({ name: persona.name, source: at(persona.locator) });
    }
    for (const r of draft.requirements) {
      merged.requirements.push({ description: r.description, ...(r.persona ? { persona: r.persona } : {}), source: at(r.locator) });
    }
    for (const page of draft.pages) merged.pages.push({ title: page.title, ...(page.description ? { description: page.description } : {}), source: at(page.locator) });
  }
  return merged;
}
