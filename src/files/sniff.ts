// Imported on first use: only a file's upload sniffs its bytes (issue 28).
type FileType = typeof import('file-type');
let fileType: Promise<FileType> | undefined;
function loadFileType(): Promise<FileType> {
  fileType ??= import('file-type');
  return fileType;
}

const OCTET_STREAM = 'application/octet-stream';
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The declared type's essence (`text/html; charset=utf-8` → `text/html`), or octet-stream when it is no media type. */
export function essence(declared: string | undefined): string {
  const value = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MEDIA_TYPE.test(value) ? value : OCTET_STREAM;
}

/**
 * The type a file is stored with (DESIGN §12): the declared one, checked against the magic
 * bytes. Bytes of a known format win over the declaration; a declared format that `file-type`
 * recognises but the bytes do not show (an HTML page sent as image/png) becomes octet-stream,
 * so it is never served as the type it pretended to be.
 */
export async function storedContentType(declared: string | undefined, head: Buffer): Promise<string> {
  const claimed = essence(declared);
  const { fileTypeFromBuffer, supportedMimeTypes } = await loadFileType();
  const sniffed = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  if (sniffed) return sniffed.mime === claimed ? claimed : sniffed.mime;
  if (supportedMimeTypes.has(claimed) || claimed.startsWith('image/') || claimed.startsWith('video/') || claimed.startsWith('audio/')) {
    // SVG is text, so file-type never sniffs it; it stays SVG (and is served as an attachment).
    return claimed === 'image/svg+xml' ? claimed : OCTET_STREAM;
  }
  return claimed;
}

/** Types a browser would run or render as a document: served as attachments, never inline. */
export function isActiveContent(contentType: string): boolean {
  return /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[a-z]+\/[a-z.+-]*\+xml|text\/javascript|application\/(x-)?javascript|application\/ecmascript|text\/ecmascript)$/.test(contentType);
}
