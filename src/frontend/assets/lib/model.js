// Lookups over the embedded schema and how records are shown.
import { SCHEMA } from '../schema.js';
import { h } from './dom.js';
import { downloadFile, ownFileUrl } from './api.js';

export const modelByResource = (resource) => SCHEMA.models.find((m) => m.resource === resource);

/** The id of a relationship value: an embedded record or a plain id. */
export const idOf = (value) => (value && typeof value === 'object' ? value.id : value);

/** A record's display name: its title field, else a short id. */
export function recordLabel(model, record) {
  if (record === null || record === undefined) return '';
  if (typeof record !== 'object') return `#${String(record).slice(0, 8)}`;
  const title = model && model.titleField ? record[model.titleField] : null;
  return title !== null && title !== undefined && title !== '' ? String(title) : `#${String(record.id).slice(0, 8)}`;
}

/** The name a file URL ends with (keys are `{uuid}-{name}`). */
export function fileName(url) {
  const last = decodeURIComponent(String(url).split(/[?#]/)[0].split('/').pop() || String(url));
  return last.replace(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-?/, '') || last;
}

/**
 * Links to a file field's URLs. The app's own files are fetched with the session's token on
 * click (a plain link would carry none) and opened from memory; other https URLs are plain links.
 */
function fileLinks(value) {
  const link = (url) => {
    const a = h('a', { href: url, class: 'file-link', rel: 'noopener noreferrer', target: '_blank' }, fileName(url));
    if (ownFileUrl(url)) {
      a.addEventListener('click', async (event) => {
        event.preventDefault();
        const blob = await downloadFile(url);
        const open = h('a', { href: URL.createObjectURL(blob), download: fileName(url) });
        open.click();
        setTimeout(() => URL.revokeObjectURL(open.href), 60_000);
      });
    }
    return a;
  };
  const urls = Array.isArray(value) ? value : [value];
  return h('span', { class: 'files' }, urls.flatMap((url, i) => (i > 0 ? [', ', link(url)] : [link(url)])));
}

const pad = (n) => String(n).padStart(2, '0');

/** ISO date-time → the local `YYYY-MM-DDTHH:MM` a datetime-local input takes. */
export function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : null;
}

function scalarText(field, value) {
  switch (field.input) {
    case 'checkbox':
      return value ? 'Yes' : 'No';
    case 'datetime':
      return new Date(value).toLocaleString();
    case 'currency':
      return typeof value === 'object' ? `${value.amount} ${value.currency}` : String(value);
    case 'json':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}

function relatedLink(field, value) {
  const target = modelByResource(field.ref);
  const id = idOf(value);
  return h('a', { href: `#/${field.ref}/${encodeURIComponent(id)}` }, recordLabel(target, value));
}

/** A field value as DOM, for lists and detail pages. */
export function displayValue(field, value) {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) {
    return h('span', { class: 'empty' }, '—');
  }
  if (field.input === 'relation') {
    if (!field.many) return relatedLink(field, value);
    return h('ul', { class: 'related' }, value.map((v) => h('li', {}, relatedLink(field, v))));
  }
  if (field.input === 'file') return fileLinks(value);
  if (Array.isArray(value)) return h('span', {}, value.map((v) => scalarText(field, v)).join(', '));
  if (field.input === 'url' && /^https?:/.test(value)) return h('a', { href: value, rel: 'noopener noreferrer', target: '_blank' }, value);
  if (field.input === 'rating') {
    const n = Math.max(0, Math.min(5, Number(value)));
    return h('span', { 'aria-label': `${n} of 5 stars` }, '★'.repeat(n) + '☆'.repeat(5 - n));
  }
  return h('span', {}, scalarText(field, value));
}
