// A model's list page: paging, sorting by column headers, a CEL filter box, live updates.
import { h, loading, notify, render } from './dom.js';
import { api, session } from './api.js';
import { API_BASE_URL } from '../config.js';
import { SCHEMA } from '../schema.js';
import { displayValue } from './model.js';
import { problemMessage } from './problems.js';

const PAGE_SIZES = [10, 20, 50, 100];
const MAX_COLUMNS = 6;

export function listHref(model, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '' && value !== null) query.set(key, String(value));
  const text = query.toString();
  return `#/${model.resource}${text ? `?${text}` : ''}`;
}

function columnsOf(model) {
  return model.fields.filter((f) => !(f.input === 'relation' && f.many) && f.input !== 'json').slice(0, MAX_COLUMNS);
}

function sortHeader(model, field, params) {
  if (!field.sortable) return h('th', { scope: 'col' }, field.label);
  const current = params.sort || '';
  const state = current === field.name ? 'ascending' : current === `-${field.name}` ? 'descending' : 'none';
  const next = state === 'ascending' ? `-${field.name}` : field.name;
  const arrow = state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : '';
  const label = `Sort by ${field.label} ${state === 'ascending' ? 'descending' : 'ascending'}`;
  return h('th', { scope: 'col', 'aria-sort': state },
    h('a', { href: listHref(model, { ...params, sort: next, offset: 0 }), class: 'sort', 'aria-label': label }, field.label, h('span', { 'aria-hidden': 'true' }, arrow)));
}

function filterForm(model, params) {
  const input = h('input', { id: 'filter', name: 'filter', type: 'search', value: params.filter || '', placeholder: "record.status == 'open'", 'aria-describedby': 'filter-help', class: 'mono' });
  return h('form', { class: 'filter', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    location.hash = listHref(model, { ...params, filter: input.value.trim(), offset: 0 });
  } },
    h('label', { for: 'filter' }, 'Filter'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Apply'),
      params.filter ? h('a', { href: listHref(model, { ...params, filter: '', offset: 0 }), class: 'button secondary' }, 'Clear') : null),
    h('p', { id: 'filter-help', class: 'hint' }, 'A CEL expression over record, e.g. ', h('code', {}, `record.${(model.fields[0] || { name: 'id' }).name} == '…'`), '; combine with && and ||.'));
}

function pager(model, params, page) {
  const limit = Number(params.limit) || 20;
  const offset = page.offset || 0;
  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.items.length;
  const size = h('select', { id: 'page-size', onchange: (e) => { location.hash = listHref(model, { ...params, limit: e.target.value, offset: 0 }); } },
    PAGE_SIZES.map((n) => h('option', { value: n, selected: n === limit }, String(n))));
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('p', { role: 'status' }, `Showing ${first}–${last} of ${page.total}`),
    h('div', { class: 'row' },
      offset > 0 ? h('a', { class: 'button secondary', href: listHref(model, { ...params, offset: Math.max(0, offset - limit) }) }, '← Previous') : null,
      last < page.total ? h('a', { class: 'button secondary', href: listHref(model, { ...params, offset: offset + limit }) }, 'Next →') : null,
      h('label', { for: 'page-size' }, 'Per page'), size));
}

/** The table (or the empty state) and the pager of one page of records. */
function listBody(model, params, page) {
  const columns = columnsOf(model);
  const rows = page.items.map((record) => h('tr', {},
    columns.map((field, i) => i === 0
      ? h('th', { scope: 'row' }, h('a', { href: `#/${model.resource}/${encodeURIComponent(record.id)}` }, field.input === 'relation' ? displayValue(field, record[field.name]).textContent : displayValue(field, record[field.name])))
      : h('td', { dataset: { label: field.label } }, displayValue(field, record[field.name])))));
  const table = page.items.length === 0
    ? h('p', { class: 'empty-state' }, params.filter ? 'No records match this filter.' : `No ${model.plural.toLowerCase()} yet.`)
    : h('div', { class: 'table-wrap' }, h('table', {}, h('caption', { class: 'visually-hidden' }, `${model.plural}, sortable by column`),
        h('thead', {}, h('tr', {}, columns.map((f) => sortHeader(model, f, params)))), h('tbody', {}, rows)));
  return [table, pager(model, params, page)];
}

const pageQuery = (params) => ({ limit: Number(params.limit) || 20, offset: Number(params.offset) || 0, sort: params.sort, filter: params.filter });

export async function renderList(model, params) {
  stopLive();
  const here = location.hash;
  render(h('h1', {}, model.plural), loading());
  let page;
  try {
    page = await api.list(model.resource, pageQuery(params));
  } catch (error) {
    if (location.hash !== here) return;
    render(h('h1', {}, model.plural), filterForm(model, params), h('p', { class: 'message message-error', role: 'alert' }, problemMessage(error)));
    return;
  }
  // Left while the page loaded: the page now shown is another's.
  if (location.hash !== here) return;
  const body = h('div', { class: 'list-body' }, listBody(model, params, page));
  render(
    h('div', { class: 'page-head' }, h('h1', {}, model.plural), h('a', { class: 'button', href: `#/${model.resource}/new` }, `New ${model.label.toLowerCase()}`)),
    filterForm(model, params), body);
  if (params.offset && page.items.length === 0 && page.total > 0) notify('This page is past the end of the list.', 'info');
  // The realtime route takes the user's token; an app without accounts serves everyone anonymously there, as its list does.
  if (session.token || !SCHEMA.auth) startLive(model, params, page, body);
}

/* Live lists (DESIGN §17). While a list is shown, an EventSource on its resource's topic tells it
 * that something changed, and the list then re-fetches the page it shows instead of patching rows:
 * the server pages, sorts and filters (CEL) the list, so only it knows whether a created or changed
 * record belongs on this page, where, and what the total becomes; one GET per burst of changes
 * (they are coalesced) keeps the page exactly what a reload would show. The browser reconnects by
 * itself with Last-Event-ID, and the server replays what was missed; `reset` (missed changes past
 * its retention) re-fetches; `close` (the token expired or was revoked, the service stops) opens a
 * new stream with the session's token of the moment, resuming from the last event seen. */

/** The live subscription of the list on screen; at most one. */
let live = null;

function stopLive() {
  live?.stop();
  live = null;
}

const COALESCE_MS = 100;
const apiBase = API_BASE_URL.replace(/\/+$/, '');

function startLive(model, params, firstPage, body) {
  const here = location.hash;
  let source = null;
  let lastEventId = '';
  let stopped = false;
  let timer = null;
  let reopen = null;
  let fetching = false;
  let again = false;
  let shown = JSON.stringify(firstPage);

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(reopen);
    source?.close();
    window.removeEventListener('hashchange', onLeave);
    body.dataset.live = 'closed';
    body.removeAttribute('aria-busy');
  };
  // Leaving the page (the router runs on hashchange) ends the stream.
  const onLeave = () => {
    if (location.hash !== here) stop();
  };
  window.addEventListener('hashchange', onLeave);

  async function refresh() {
    if (stopped) return;
    if (!body.isConnected) return stop();
    if (fetching) return void (again = true);
    fetching = true;
    try {
      const page = await api.list(model.resource, pageQuery(params));
      const text = JSON.stringify(page);
      // Unchanged (the change was elsewhere): leave the DOM, and the focus, alone.
      if (!stopped && body.isConnected && text !== shown) {
        shown = text;
        keepFocus(body, () => body.replaceChildren(...listBody(model, params, page)));
      }
    } catch (error) {
      if (error.status === 401) stop();
      if (!stopped) notify(problemMessage(error), 'error');
    } finally {
      fetching = false;
      if (again && !stopped) {
        again = false;
        schedule();
      } else if (timer === null) body.removeAttribute('aria-busy');
    }
  }

  // The list is busy (aria-busy) from a change's notice until its page is fetched again.
  function schedule() {
    body.setAttribute('aria-busy', 'true');
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void refresh();
    }, COALESCE_MS);
  }

  function open() {
    const url = new URL(`${apiBase}/realtime`, location.href);
    url.searchParams.set('subscribe', model.resource);
    // EventSource cannot send an Authorization header: the token goes as ?token= (the server never logs it).
    if (session.token) url.searchParams.set('token', session.token);
    if (lastEventId) url.searchParams.set('lastEventId', lastEventId);
    source = new EventSource(url);
    source.addEventListener('open', () => {
      body.dataset.live = 'open';
      // Nothing to resume from (the first stream, or no change seen yet): what changed meanwhile is fetched.
      if (!lastEventId) schedule();
    });
    for (const action of ['create', 'update', 'delete']) {
      source.addEventListener(action, (event) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        schedule();
      });
    }
    source.addEventListener('reset', schedule);
    source.addEventListener('close', () => {
      source.close();
      if (stopped || (SCHEMA.auth && !session.token)) return stop();
      body.dataset.live = 'connecting';
      reopen = setTimeout(open, 1000);
    });
    source.addEventListener('error', () => {
      // CLOSED: refused (401, 429…), the browser does not try again. CONNECTING: it does, by itself.
      if (source.readyState === EventSource.CLOSED) stop();
      else body.dataset.live = 'connecting';
    });
  }

  live = { stop };
  body.dataset.live = 'connecting';
  open();
}

/** Runs `update` (which replaces what `box` holds) and gives the focus back to the same link or control. */
function keepFocus(box, update) {
  const active = document.activeElement;
  const within = active && active !== box && box.contains(active);
  const selector = !within ? null : active.id ? `#${CSS.escape(active.id)}` : active.getAttribute('href') ? `a[href="${CSS.escape(active.getAttribute('href'))}"]` : null;
  update();
  if (selector) box.querySelector(selector)?.focus();
}
