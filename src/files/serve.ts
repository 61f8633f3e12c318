import type { FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import { Problem } from '../errors.ts';
import type { FileService } from './service.ts';
import type { FileRow } from './table.ts';
import { isActiveContent } from './sniff.ts';

/** Whether an If-None-Match list names `etag` (weak comparison, RFC 9110 §13.1.2). */
function noneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function dispositionName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const ascii = base.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}

/**
 * Sends a stored file (DESIGN §12): ETag (the sha256), Last-Modified, Accept-Ranges, one
 * `Range` as 206 (unsatisfiable: 416), If-None-Match as 304; always nosniff, and types a
 * browser would run as attachments in a sandbox. Streamed from the driver.
 */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, files: FileService, row: FileRow): Promise<FastifyReply> {
  const etag = `"${row.sha256}"`;
  const size = Number(row.size);
  reply.header('etag', etag);
  reply.header('last-modified', new Date(row.updated_at).toUTCString());
  reply.header('accept-ranges', 'bytes');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', "default-src 'none'; sandbox");
  reply.header('cache-control', 'private, no-cache');
  const active = isActiveContent(row.content_type);
  reply.header('content-disposition', `${active ? 'attachment' : 'inline'}; ${dispositionName(row.path)}`);

  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && noneMatch(ifNoneMatch, etag)) return reply.status(304).send();

  const rangeHeader = request.headers.range;
  const ifRange = request.headers['if-range'];
  // If-Range naming other bytes: the whole current file instead of a slice of it.
  const rangeApplies = rangeHeader !== undefined && (ifRange === undefined || ifRange === etag);
  const ranges = rangeApplies ? parseRange(size, rangeHeader, { combine: true }) : -2;
  if (ranges === -1) {
    reply.header('content-range', `bytes */${size}`);
    throw new Problem(416, `The range ${rangeHeader} is outside the file's ${size} bytes.`, [{ path: '/headers/range', message: 'not satisfiable' }]);
  }
  reply.type(row.content_type);
  // One range is served as 206; a malformed header or several ranges get the whole file (RFC 9110 allows both).
  if (Array.isArray(ranges) && ranges.length === 1 && ranges.type === 'bytes') {
    const [{ start, end }] = ranges;
    reply.status(206);
    reply.header('content-range', `bytes ${start}-${end}/${size}`);
    reply.header('content-length', end - start + 1);
    if (request.method === 'HEAD') return reply.send();
    return reply.send(await files.content(row, { start, end }));
  }
  reply.header('content-length', size);
  if (request.method === 'HEAD' || size === 0) return reply.send(size === 0 ? '' : undefined);
  return reply.send(await files.content(row));
}
