/**
 * PostgreSQL text and jsonb cannot hold NUL, and the service refuses request bodies that carry
 * one: the JSON Schema pattern that says so, stated on the free strings of both OpenAPI documents.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
