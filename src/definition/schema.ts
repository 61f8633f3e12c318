/**
 * TypeBox schemas of the application definition (`scode`), mirroring the
 * interface specification member by member (required / optional exactly as the
 * spec shows). Objects allow unknown members (JSON Schema default: no
 * `additionalProperties: false` anywhere), and validation never strips them, so
 * they are preserved.
 *
 * Shape only: references between ids, expressions, effect params etc. are
 * checked in `consistency/`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

// ---------------------------------------------------------------- id prefixes

export const MODEL_ID_PREFIX = 'urn:svc:model:';
export const FIELD_ID_PREFIX = 'urn:svc:edge:';
export const ACTION_ID_PREFIX = 'urn:svc:action:';
export const TRIGGER_ID_PREFIX = 'urn:svc:trigger:';
export const REQUIREMENT_ID_PREFIX = '@requirement/';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** `errorMessage` is our own schema option: `shape.ts` reports it instead of the raw pattern. */
const prefixed = (prefix: string, description: string) =>
  Type.String({ pattern: `^${escape(prefix)}.+$`, description, errorMessage: `Expected a string starting with '${prefix}'` });

export const ModelIdSchema = prefixed(MODEL_ID_PREFIX, `A model id, starting with \`${MODEL_ID_PREFIX}\`.`);
export const FieldIdSchema = prefixed(FIELD_ID_PREFIX, `A field id, starting with \`${FIELD_ID_PREFIX}\`.`);
export const ActionIdSchema = prefixed(ACTION_ID_PREFIX, `An action id, starting with \`${ACTION_ID_PREFIX}\`.`);
export const TriggerIdSchema = prefixed(TRIGGER_ID_PREFIX, `A trigger id, starting with \`${TRIGGER_ID_PREFIX}\`.`);
export const RequirementIdSchema = prefixed(
  REQUIREMENT_ID_PREFIX,
  `A requirement id, starting with \`${REQUIREMENT_ID_PREFIX}\`.`,
);
/** A construct id shaped like `@<kind>/<name>` (a requirement or a user journey). */
export const ConstructIdSchema = Type.String({
  pattern: '^@[^/]+/.+$',
  description: 'A construct id `@<kind>/<name>`.',
  errorMessage: "Expected a construct id shaped like '@<kind>/<name>'",
});

/**
 * Longest lists a definition may hold (`maxItems`): far above any real application, low enough that
 * an oversized body is refused before its elements are validated.
 */
export const MAX_LIST = 1000;
export const MAX_SHORT_LIST = 100;
/**
 * A model's fields: as many as PostgreSQL's columns in a table, so any real table fits; whether
 * the table's columns do is checked with the rest (consistency/table-width.ts).
 */
export const MAX_FIELDS = 1600;
const List = <T extends TSchema>(item: T, maxItems = MAX_LIST) => Type.Array(item, { maxItems });

const ReferenceRequirements = List(RequirementIdSchema);

// ------------------------------------------------------------ primitive types

export const PRIMITIVE_TYPES = [
  'p_TEXT',
  'p_IMAGE',
  'p_BOOLEAN',
  'p_NUMBER',
  'p_DATE',
  'p_DATE_TIME',
  'p_TIME',
  'p_ADDRESS',
  'p_PHONE_NUMBER',
  'p_CURRENCY_AMOUNT',
  'p_LINK',
  'p_VIDEO',
  'p_STAR_RATING',
  'p_FILE',
] as const;

export const PrimitiveTypeSchema = Type.Union(PRIMITIVE_TYPES.map((p) => Type.Literal(p)));
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];

/**
 * What a field holds: one of the field types (an enum in the management OpenAPI; docs/definition-language.md
 * describes each) or a model's id.
 */
export const FieldTypeSchema = Type.Union(
  [
    // An enum for the document and the route validators (an unknown type is a 400 naming the field's `to`);
    // the definition's own shape check takes any text here, and its consistency check names an unknown type.
    Type.String({ enum: [...PRIMITIVE_TYPES], description: 'A field type: see docs/definition-language.md.' }),
    ModelIdSchema,
  ],
  { description: 'A field type (`p_TEXT`, `p_NUMBER`, …) or the id of a model (a relationship).' },
);

const PRIMITIVE_SET: ReadonlySet<string> = new Set(PRIMITIVE_TYPES);
export function isPrimitiveType(value: unknown): value is PrimitiveType {
  return typeof value === 'string' && PRIMITIVE_SET.has(value);
}

// ------------------------------------------------------------- access control

export const AccessSchema = Type.Union([Type.Literal('allow'), Type.Literal('deny')]);

export const AccessRuleSchema = Type.Object({
  access: AccessSchema,
  /** An expression resolving to a boolean. */
  criteria: Type.String(),
});

export const AccessControlSchema = Type.Object({
  rules: List(AccessRuleSchema, MAX_SHORT_LIST),
  defaultAccess: Type.Optional(AccessSchema),
});

// -------------------------------------------------------------- models, fields

export const EnumValueSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const FieldSchema = Type.Object({
  id: FieldIdSchema,
  name: Type.String({ minLength: 1 }),
  relationshipOwner: Type.Boolean(),
  min: Type.Number(),
  max: Type.Union([Type.Number(), Type.Null()]),
  /** A field type (`p_TEXT`, …) or a model id (a relationship); that the model exists is checked for consistency. */
  to: FieldTypeSchema,
  accessControl: AccessControlSchema,
  computed: Type.Optional(Type.String()),
  defaultValue: Type.Optional(Type.Unknown()),
  enum: Type.Optional(List(EnumValueSchema)),
  /** Accepted on create and update, never returned (a password or key a client sends). */
  writeOnly: Type.Optional(Type.Boolean()),
  /**
   * For a relationship: the id of its partner, the field of the target model pointing back. Needed
   * only where two models have several relationships between them (`Flight.origin` and
   * `Flight.destination` to `Airport`, each with its own inverse); without it the partner is the
   * one field pointing back.
   */
  partner: Type.Optional(FieldIdSchema),
});

/** An index over stored fields of the model, by field id (a rename keeps it); `unique` refuses duplicates. */
export const ModelIndexSchema = Type.Object({
  fields: Type.Array(FieldIdSchema, { minItems: 1, maxItems: 32 }),
  unique: Type.Optional(Type.Boolean()),
});

export const ModelSchema = Type.Object({
  id: ModelIdSchema,
  name: Type.String({ minLength: 1 }),
  fields: List(FieldSchema, MAX_FIELDS),
  accessControl: AccessControlSchema,
  referenceRequirements: Type.Optional(ReferenceRequirements),
  /** A member beyond those the interface shows: indexes, unique or not, over the model's fields. */
  indexes: Type.Optional(Type.Array(ModelIndexSchema, { maxItems: 64 })),
});

// ------------------------------------------------------------ actions, effects

export const EffectOnErrorSchema = Type.Object({
  nextId: Type.String(),
  continueOriginalFlow: Type.Optional(Type.Boolean()),
});

/**
 * The spec does not say which effect members are required. Decision: the
 * effect's own id and its name are required; the rest is optional.
 */
export const ActionEffectSchema = Type.Object({
  actionEffectId: Type.String({ minLength: 1 }),
  effect: Type.String({ minLength: 1 }),
  /** Literal params. */
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** Expression params, evaluated just before the effect; they override `params`. */
  bindParams: Type.Optional(Type.Record(Type.String(), Type.String())),
  next: Type.Optional(Type.String()),
  onError: Type.Optional(EffectOnErrorSchema),
});

export const ActionSchema = Type.Object({
  id: ActionIdSchema,
  effects: List(ActionEffectSchema),
  startEffectId: Type.String(),
  bindReturnValue: Type.Optional(Type.String()),
  onError: Type.Optional(EffectOnErrorSchema),
  referenceRequirements: Type.Optional(ReferenceRequirements),
});

// ------------------------------------------------------------------- triggers

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export const HttpMethodSchema = Type.Union(HTTP_METHODS.map((m) => Type.Literal(m)));

export const EventTriggerSchema = Type.Object({
  id: TriggerIdSchema,
  type: Type.Literal('event'),
  eventName: Type.String({ minLength: 1 }),
  payload: Type.Record(Type.String(), Type.Unknown()),
});

export const HttpTriggerSchema = Type.Object({
  id: TriggerIdSchema,
  type: Type.Literal('http'),
  method: HttpMethodSchema,
  /** A path template like `/some/path/:paramName`; its shape is checked for consistency. */
  path: Type.String({ minLength: 1 }),
  matchSelectors: Type.Optional(List(Type.String(), MAX_SHORT_LIST)),
});

export const TriggerSchema = Type.Object({
  trigger: Type.Union([EventTriggerSchema, HttpTriggerSchema]),
  actionId: Type.String(),
  initialState: Type.Record(Type.String(), Type.String()),
  validation: List(Type.String(), MAX_SHORT_LIST),
  isPublic: Type.Optional(Type.Boolean()),
  referenceRequirements: Type.Optional(ReferenceRequirements),
});

// ------------------------------------------------- requirements and the drafts

export const IMPORTANCE = ['critical', 'required', 'vital', 'optional'] as const;
export const FREQUENCY = ['always', 'often', 'occasionally', 'rarely'] as const;
const Importance = Type.Union(IMPORTANCE.map((v) => Type.Literal(v)));

export const RequirementSchema = Type.Object({
  id: RequirementIdSchema,
  type: Type.Union([Type.Literal('usability'), Type.Literal('userJourneyStep')]),
  parentId: Type.Optional(Type.Union([ConstructIdSchema, Type.Null()])),
  description: Type.String(),
  importanceForUser: Importance,
  importanceForBusiness: Importance,
  frequencyOfUse: Type.Union(FREQUENCY.map((v) => Type.Literal(v))),
});

export const PersonaSchema = Type.Object({ name: Type.String() });

export const AppOverviewSchema = Type.Union([
  Type.Object({
    name: Type.String(),
    jobToBeDone: Type.String(),
    unsupportedUserJourneys: List(
      Type.Object({
        name: Type.String(),
        description: Type.String(),
        reason: Type.String(),
        steps: List(Type.String(), MAX_SHORT_LIST),
      }),
    ),
    draftUserJourneys: List(
      Type.Object({
        name: Type.String(),
        outcome: Type.String(),
        steps: List(Type.String(), MAX_SHORT_LIST),
      }),
    ),
  }),
  Type.Null(),
]);

const DraftRequirementSchema = Type.Object({
  id: Type.String(),
  description: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
});

export const AppDraftSchema = Type.Union([
  Type.Object({
    sitemap: Type.Object({
      nodes: List(
        Type.Object({
          id: Type.String(),
          route: Type.String(),
          content: List(Type.Object({ title: Type.String(), description: Type.String() })),
        }),
      ),
      edges: List(Type.Object({ from: Type.String(), to: Type.String(), type: Type.String() })),
    }),
    requirements: List(DraftRequirementSchema),
  }),
  Type.Null(),
]);

export const RELATIONSHIP_TYPES = ['hasOne', 'hasMany', 'belongsToOne', 'belongsToMany', 'manyToMany'] as const;

export const DomainModelSchema = Type.Union([
  Type.Object({
    models: List(
      Type.Object({
        name: Type.String(),
        fields: List(
          Type.Object({
            name: Type.String(),
            type: Type.String(),
            relationshipType: Type.Optional(Type.Union(RELATIONSHIP_TYPES.map((v) => Type.Literal(v)))),
          }),
        ),
        requirements: List(DraftRequirementSchema),
        isUserModel: Type.Boolean(),
      }),
    ),
  }),
  Type.Null(),
]);

// ------------------------------------------------------------- the definition

export const AppDefinitionSchema = Type.Object({
  requirements: List(RequirementSchema),
  appId: Type.String(),
  /** Sample shape major.minor.patch; the exact pattern is not given by the spec. */
  version: Type.String(),
  appOverview: AppOverviewSchema,
  appDescription: Type.String(),
  appDraft: AppDraftSchema,
  domainModel: DomainModelSchema,
  actions: List(ActionSchema),
  triggers: List(TriggerSchema),
  userModelId: ModelIdSchema,
  models: List(ModelSchema),
  personas: Type.Optional(List(PersonaSchema, MAX_SHORT_LIST)),
});

// ---------------------------------------------------------------------- types

export type AppDefinition = Static<typeof AppDefinitionSchema>;
export type Requirement = Static<typeof RequirementSchema>;
export type Persona = Static<typeof PersonaSchema>;
export type AppOverview = Static<typeof AppOverviewSchema>;
export type AppDraft = Static<typeof AppDraftSchema>;
export type DomainModel = Static<typeof DomainModelSchema>;
export type Model = Static<typeof ModelSchema>;
export type ModelIndex = Static<typeof ModelIndexSchema>;
export type Field = Static<typeof FieldSchema>;
export type EnumValue = Static<typeof EnumValueSchema>;
export type AccessControl = Static<typeof AccessControlSchema>;
export type AccessRule = Static<typeof AccessRuleSchema>;
export type Access = Static<typeof AccessSchema>;
export type Action = Static<typeof ActionSchema>;
export type ActionEffect = Static<typeof ActionEffectSchema>;
export type EffectOnError = Static<typeof EffectOnErrorSchema>;
export type Trigger = Static<typeof TriggerSchema>;
export type EventTrigger = Static<typeof EventTriggerSchema>;
export type HttpTrigger = Static<typeof HttpTriggerSchema>;
export type HttpMethod = Static<typeof HttpMethodSchema>;
