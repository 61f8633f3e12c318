/**
 * The one interface every extractor implements (DESIGN §13): one attachment's bytes
 * in, a draft of what the document describes out. A draft has no ids, no partners
 * and no access rules: `specifications/build.ts` normalises names, merges drafts of
 * several attachments, turns them into definition members, records provenance from
 * each `locator` and validates the result like any saved definition.
 *
 * Extractors are pure, deterministic and offline: the same bytes give the same draft.
 * A document they cannot use gives `warnings` (or throws `ExtractionError` when
 * nothing at all could be read), never a crash.
 */
import type { EnumValue, PrimitiveType } from '../../definition/schema.ts';

/** Detected from content when an attachment is stored (DESIGN §13). */
export const ATTACHMENT_KINDS = [
  'openapi',
  'jsonschema',
  'sql',
  'csv',
  'markdown',
  'figma',
  'pdf',
  'image',
  'text',
  'other',
] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

export interface ExtractorInput {
  attachmentId: string;
  /** The attachment's file name, e.g. `petstore.yaml`. */
  name: string;
  kind: AttachmentKind;
  bytes: Uint8Array;
  /**
   * Go past a part the extractor cannot read (a SQL table, a PDF page) instead of failing the
   * document: the part is left out and a warning says which, where and why.
   */
  force?: boolean;
}

/**
 * Where in the source document something came from, as a reader would find it:
 * `line 12`, `#/components/schemas/Pet`, `column "price"`, `table public.film`, `page 3`.
 */
export type Locator = string;

/** A field as the document states it. Names are as written (`owner_id`); build.ts normalises them. */
export interface DraftField {
  name: string;
  /** A primitive type, or the *name* of another draft model (a relationship). */
  type: PrimitiveType | { model: string };
  /** Many values (an array column, or the to-many side of a relationship). */
  many: boolean;
  /** `NOT NULL`, listed in `required`: becomes `min: 1`. */
  required: boolean;
  /**
   * The document says no two records share the value: a natural key kept as a field (`'ALFKI'`,
   * a `CHAR(5)` primary key), a `Unique ID` column of a reference manual.
   */
  unique?: boolean;
  enum?: EnumValue[];
  /** A literal default as the document gives it (already converted to a JSON value). */
  defaultValue?: unknown;
  /**
   * For a relationship: the name of the field on the target model that points back,
   * when the document says so (a foreign key and its referencing table). build.ts
   * creates the partner when absent.
   */
  partner?: string;
  /**
   * Only ever written, never read back: the document gives the property only in request
   * variants of the model (`UserCreationReq.password` beside `UserResp`) or marks it `writeOnly`.
   */
  writeOnly?: boolean;
  locator: Locator;
}

export interface DraftModel {
  name: string;
  fields: DraftField[];
  /** Only a join table of two foreign keys (SQL): build.ts turns it into a many-to-many between them. */
  joinOf?: [string, string];
  locator: Locator;
}

/** An operation the document describes (OpenAPI): becomes an action with an HTTP trigger. */
export interface DraftAction {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  description?: string;
  /** The draft model the operation reads or writes, from its response or request body schema. */
  model?: string;
  locator: Locator;
}

export interface DraftPersona {
  name: string;
  locator: Locator;
}

/** A user story or stated need: "As a librarian, I want …, so that …". */
export interface DraftRequirement {
  description: string;
  persona?: string;
  locator: Locator;
}

/** A page or screen (Markdown sitemap lists, Figma top-level frames). */
export interface DraftPage {
  title: string;
  description?: string;
  locator: Locator;
}

export interface DraftWarning {
  locator: Locator;
  message: string;
}

export interface Draft {
  /** The document's own title, when it has one (OpenAPI `info.title`, a Markdown H1). */
  title?: string;
  description?: string;
  models: DraftModel[];
  actions: DraftAction[];
  personas: DraftPersona[];
  requirements: DraftRequirement[];
  pages: DraftPage[];
  warnings: DraftWarning[];
}

export type Extractor = (input: ExtractorInput) => Promise<Draft>;

/** Nothing in the document could be read at all: the job fails with this message. */
export class ExtractionError extends Error {
  override name = 'ExtractionError';
  /**
   * The whole specification fails, whatever the other attachments give: the document says
   * something that cannot be read and cannot be left out without changing what the rest means
   * (a SQL table other tables' foreign keys point at).
   */
  failsSpecification = false;
}

export function emptyDraft(): Draft {
  return { models: [], actions: [], personas: [], requirements: [], pages: [], warnings: [] };
}
