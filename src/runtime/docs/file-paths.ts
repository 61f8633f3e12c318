// The files routes in a version's OpenAPI document (DESIGN §6, "Files"): `POST /files` and
// `GET /files/{key}`, left out when the app's own model or triggers hold `/files`.
import type { CompiledApp } from '../compiled-app.ts';
import { filesRouteTaken } from '../http/file-routes.ts';
import { schemaRef, type JsonSchema } from './schemas.ts';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: schemaRef('Problem') } } });
const BYTES = { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };

export const UPLOADED_FILE: JsonSchema = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'What a file field takes (p_FILE, p_IMAGE, p_VIDEO).' },
    url: { type: 'string', format: 'uri', description: 'Where GET /files/{key} serves it.' },
    contentType: { type: 'string', description: 'The declared type, or the one its bytes show when they differ.' },
    size: { type: 'integer', description: 'Bytes.' },
  },
  required: ['key', 'url', 'contentType', 'size'],
};

/** The two paths, or none when the app keeps `/files` for itself. */
export function filePaths(app: CompiledApp): Record<string, Record<string, unknown>> {
  if (filesRouteTaken(app)) return {};
  const tags = ['files'];
  return {
    '/files': {
      post: {
        operationId: 'uploadFile',
        summary: 'Upload a file (signed-in end users; builders as administrators)',
        description: `The raw body with its Content-Type, or multipart/form-data with one part named \`file\`; streamed into the application owner's storage. At most APPBUILDER_APP_FILE_MAX_BYTES bytes (default 10 MiB): past it 413. Send the answered \`key\` as the value of a file field.`,
        tags,
        security: [{ endUser: [] }, { builderBearer: [], apiClient: [] }],
        requestBody: {
          required: true,
          content: {
            'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
            'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: ['file'] } },
          },
        },
        responses: {
          201: { description: 'Stored.', content: { 'application/json': { schema: schemaRef('UploadedFile') } } },
          400: problem('No file in the request.'),
          401: problem('Not signed in.'),
          413: problem('Larger than the limit; nothing was stored.'),
          415: problem('A JSON body: send a JSON file as multipart or application/octet-stream.'),
        },
      },
    },
    '/files/{key}': {
      parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getFile',
        summary: 'The bytes of an uploaded file',
        description:
          'Served to a caller who may read at least one record whose file field holds the key (under that model\'s read rule), to the end user who uploaded it, and to administrators; anyone else gets 404. ETag (the sha256), Range (206/416), If-None-Match (304), `X-Content-Type-Options: nosniff`; HTML, SVG, XML and JavaScript as attachments.',
        tags,
        security: [{}, { endUser: [] }, { builderBearer: [], apiClient: [] }],
        responses: {
          200: { description: 'The bytes.', content: BYTES },
          206: { description: 'The requested range.', content: BYTES },
          304: { description: 'Not modified (If-None-Match).' },
          404: problem('No such file, or none of the records referring to it is the caller\'s to read.'),
          416: problem('The range is outside the file.'),
        },
      },
    },
  };
}
