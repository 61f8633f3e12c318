/**
 * Building a specification (DESIGN §13): each attachment's extractor gives a draft, the drafts
 * merge (merge.ts), the domain model is planned (domain.ts) and turned into models by
 * `definition/generate.ts`; operations map onto the generated routes (operations.ts), stories become
 * personas and requirements, pages the sitemap draft. The content then passes the same
 * validation as a definition saved through the API (settle.ts), and `provenance` maps each
 * produced element's JSON pointer to its attachment and place in it.
 */
import { generateModelsFromDomainModel } from '../definition/generate.ts';
import { isRelationship } from '../definition/relationships.ts';
import type { AppDefinition, Requirement } from '../definition/schema.ts';
import { extractorFor } from './extractors/index.ts';
import { ExtractionError, type AttachmentKind, type Draft, type Extractor } from './extractors/types.ts';
import { mergeDrafts, type Merged, type Source, type SourcedDraft, type SpecWarning } from './merge.ts';
import { planDomain, type StatedPair } from './domain.ts';
import { addUserModel, settle, type SourceOf } from './settle.ts';
import { freeName, slug } from './names.ts';
import { chooseUserModel } from './user-model.ts';
import { DEFAULT_ACCESS_MODE, type AccessMode } from './access-proposal.ts';
import { proposeEndUserAccess } from './end-user-access.ts';
import { checkDraftSize, dropOversizeModels } from './limits.ts';
import { mapOperations } from './operations.ts';

export interface BuildAttachment {
  id: string;
  name: string;
  kind: AttachmentKind;
  bytes: Uint8Array;
}

export interface SpecSummary {
  attachments: number;
  models: number;
  fields: number;
  relationships: number;
  actions: number;
  triggers: number;
  requirements: number;
  personas: number;
  pages: number;
  warnings: number;
}

export interface BuiltSpecification {
  content: AppDefinition;
  provenance: Record<string, Source>;
  warnings: SpecWarning[];
  summary: SpecSummary;
}

/** Choices made when building: who may do what in the app (access-proposal.ts). */
export interface BuildOptions {
  access?: AccessMode;
  /** Leave out the parts of a document that cannot be read, each in a warning, instead of failing it (ExtractorInput.force). */
  force?: boolean;
}

function requirementsOf(merged: Merged, sourceOf: SourceOf): Requirement[] {
  const ids = new Set<string>();
  return merged.requirements.map((r) => {
    const words = r.description.split(/\s+/).slice(0, 8).join(' ');
    const requirement: Requirement = {
      id: `@requirement/${freeName(slug(words), ids)}`,
      type: 'usability',
      parentId: null,
      description: r.description,
      importanceForUser: 'required',
      importanceForBusiness: 'required',
      frequencyOfUse: 'often',
    };
    sourceOf.set(requirement, r.source);
    return requirement;
  });
}

/** The pure part: drafts in, validated content out. */
export function buildFromDrafts(name: string, drafts: SourcedDraft[], extraWarnings: SpecWarning[] = [], options: BuildOptions = {}): BuiltSpecification {
  const merged = mergeDrafts(drafts);
  checkDraftSize(merged, 'the attachments together describe');
  const warnings: SpecWarning[] = [...extraWarnings, ...merged.warnings];
  const users = chooseUserModel(merged.models, drafts);
  warnings.push(...users.warnings);
  const planned = planDomain(users.models, users.name);
  warnings.push(...planned.warnings);
  // The added User names no place in a document.
  if (users.added) planned.sources.delete(users.added);
  const sourceOf: SourceOf = new WeakMap();

  const skeleton: AppDefinition = {
    appId: slug(name),
    version: '1.0.0',
    appDescription: merged.description ?? `Generated from ${drafts.map((d) => d.name).join(', ') || 'no attachment'}.`,
    userModelId: 'urn:svc:model:none',
    personas: merged.personas.map((p) => ({ name: p.name })),
    requirements: [],
    appOverview: { name: merged.title ?? name, jobToBeDone: merged.description ?? merged.title ?? name, unsupportedUserJourneys: [], draftUserJourneys: [] },
    appDraft: null,
    domainModel: { models: planned.models },
    actions: [],
    triggers: [],
    models: [],
  };
  const def = generateModelsFromDomainModel(skeleton);
  pairById(def, planned.pairs);
  for (const model of def.models) {
    const fieldSources = planned.sources.get(model.name);
    const declared = planned.declared.get(model.name);
    const modelSource = merged.models.find((m) => m.name === model.name)?.source;
    if (modelSource) sourceOf.set(model, modelSource);
    for (const field of model.fields) {
      const source = fieldSources?.get(field.name);
      if (source) sourceOf.set(field, source);
      const from = declared?.get(field.name);
      if (!from) continue;
      if (from.required && field.max === 1) field.min = 1;
      if (from.enum && from.enum.length > 0) field.enum = from.enum;
      if (from.defaultValue !== undefined) field.defaultValue = from.defaultValue;
      if (from.writeOnly) field.writeOnly = true;
      if (from.unique && field.max === 1 && !isRelationship(field)) {
        (model.indexes ??= []).push({ fields: [field.id], unique: true });
        warnings.push({ ...from.source, message: `${model.name}.${field.name} is a key of the document: a unique index keeps two records from sharing its value.` });
      }
    }
  }
  if (!def.models.some((m) => m.id === def.userModelId)) {
    addUserModel(def);
    warnings.push({ message: 'No attachment describes users with an email: a User model (name, email) was added as the user model.' });
  }
  merged.personas.forEach((p, i) => sourceOf.set(def.personas![i], p.source));
  def.requirements = requirementsOf(merged, sourceOf);
  // Operations map onto the generated routes or are warnings: none becomes a route of its own.
  warnings.push(...mapOperations(merged.actions, def));
  const nodes = new Set<string>();
  const pages = merged.pages.map((page) => {
    const id = freeName(slug(page.title), nodes);
    const node = { id, route: id === 'home' ? '/' : `/${id}`, content: [{ title: page.title, description: page.description ?? '' }] };
    sourceOf.set(node, page.source);
    return node;
  });
  if (pages.length > 0 || def.requirements.length > 0) {
    def.appDraft = {
      sitemap: { nodes: pages, edges: [] },
      requirements: def.requirements.map((r) => ({ id: r.id, description: r.description, parentId: null })),
    };
  }

  warnings.push(...settle(def, sourceOf));
  warnings.push(...proposeEndUserAccess(def, options.access ?? DEFAULT_ACCESS_MODE, sourceOf));
  const provenance = provenanceOf(def, sourceOf);
  return { content: def, provenance, warnings: pointed(warnings, provenance), summary: summaryOf(def, drafts.length, warnings.length) };
}

/** Several relationships between two models: each field and its partner name each other by id. */
function pairById(def: AppDefinition, pairs: StatedPair[]): void {
  const fieldOf = (model: string, field: string) => def.models.find((m) => m.name === model)?.fields.find((f) => f.name === field);
  for (const pair of pairs) {
    const field = fieldOf(pair.model, pair.field);
    const partner = fieldOf(pair.target, pair.partner);
    if (!field || !partner) continue;
    field.partner = partner.id;
    partner.partner = field.id;
  }
}

/** Each produced element's JSON pointer → its source. */
function provenanceOf(def: AppDefinition, sourceOf: SourceOf): Record<string, Source> {
  const out: Record<string, Source> = {};
  const put = (pointer: string, element: object) => {
    const source = sourceOf.get(element);
    if (source) out[pointer] = source;
  };
  def.models.forEach((m, i) => {
    put(`/models/${i}`, m);
    m.fields.forEach((f, k) => put(`/models/${i}/fields/${k}`, f));
  });
  def.actions.forEach((a, i) => put(`/actions/${i}`, a));
  def.triggers.forEach((t, i) => put(`/triggers/${i}`, t));
  def.requirements.forEach((r, i) => put(`/requirements/${i}`, r));
  def.personas?.forEach((p, i) => put(`/personas/${i}`, p));
  def.appDraft?.sitemap.nodes.forEach((n, i) => put(`/appDraft/sitemap/nodes/${i}`, n));
  return out;
}

/** A warning about a place in an attachment that produced an element of the content names that element's pointer. */
function pointed(warnings: SpecWarning[], provenance: Record<string, Source>): SpecWarning[] {
  const pointers = new Map<string, string>();
  for (const [pointer, source] of Object.entries(provenance)) {
    const key = `${source.attachmentId}\u0000${source.locator}`;
    if (!pointers.has(key)) pointers.set(key, pointer);
  }
  return warnings.map((w) => {
    const pointer = w.attachmentId && w.locator ? pointers.get(`${w.attachmentId}\u0000${w.locator}`) : undefined;
    return pointer && !w.path ? { ...w, path: pointer } : w;
  });
}

function summaryOf(def: AppDefinition, attachments: number, warnings: number): SpecSummary {
  const fields = def.models.flatMap((m) => m.fields);
  const relationships = fields.filter((f) => f.to.startsWith('urn:svc:model:'));
  return {
    attachments,
    models: def.models.length,
    fields: fields.length,
    relationships: relationships.length,
    actions: def.actions.length,
    triggers: def.triggers.length,
    requirements: def.requirements.length,
    personas: def.personas?.length ?? 0,
    pages: def.appDraft?.sitemap.nodes.length ?? 0,
    warnings,
  };
}

function hasSomething(draft: Draft): boolean {
  return draft.models.length + draft.actions.length + draft.personas.length + draft.requirements.length + draft.pages.length > 0;
}

/** What a build is doing: reading one attachment, or (null) building from the drafts. */
export type BuildStage = { attachment: Pick<BuildAttachment, 'id' | 'name' | 'kind'> } | null;

/**
 * Runs each attachment's extractor and builds the content. An attachment no extractor reads,
 * or one its extractor cannot read (a cap of limits.ts among the reasons), is a warning; when
 * no attachment gave anything at all the build fails with an `ExtractionError` saying why for
 * each. `onStage` hears of each step as it starts (the sandbox's clock, sandbox.ts).
 */
export async function buildSpecification(
  name: string,
  attachments: BuildAttachment[],
  extractors: (kind: AttachmentKind) => Extractor | undefined = extractorFor,
  onStage: (stage: BuildStage) => void = () => {},
  options: BuildOptions = {},
): Promise<BuiltSpecification> {
  const drafts: SourcedDraft[] = [];
  const warnings: SpecWarning[] = [];
  const reasons: string[] = [];
  for (const attachment of attachments) {
    const extract = extractors(attachment.kind);
    if (!extract) {
      const message = `${attachment.name} is an attachment of kind ${attachment.kind}, which no extractor reads; it was skipped.`;
      warnings.push({ attachmentId: attachment.id, message });
      reasons.push(message);
      continue;
    }
    onStage({ attachment: { id: attachment.id, name: attachment.name, kind: attachment.kind } });
    try {
      const draft = await extract({ attachmentId: attachment.id, name: attachment.name, kind: attachment.kind, bytes: attachment.bytes, force: options.force === true });
      checkDraftSize(draft, 'the document describes');
      dropOversizeModels(draft);
      drafts.push({ attachmentId: attachment.id, name: attachment.name, draft });
      if (!hasSomething(draft)) reasons.push(`${attachment.name} (${attachment.kind}) describes no model, operation, story or page${draft.warnings[0] ? `: ${draft.warnings[0].message}` : '.'}`);
    } catch (error) {
      if (!(error instanceof ExtractionError)) throw error;
      const message = `${attachment.name} (${attachment.kind}) could not be read: ${error.message}`;
      if (error.failsSpecification) throw new ExtractionError(message);
      warnings.push({ attachmentId: attachment.id, message });
      reasons.push(message);
    }
  }
  if (!drafts.some((d) => hasSomething(d.draft))) {
    throw new ExtractionError(`Nothing could be read from the attachments. ${reasons.join(' ')}`.trim());
  }
  onStage(null);
  return buildFromDrafts(name, drafts, warnings, options);
}
