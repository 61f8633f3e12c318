// Small DOM helpers and the message region (aria-live).

/** h('a', {href: '#/'}, 'Home'): attributes set as properties when they exist, else as attributes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key in el && !key.includes('-') && key !== 'list' && key !== 'form') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const main = () => document.getElementById('main');

/** Replaces the page content and moves focus to its heading (for keyboard and screen-reader users). */
export function render(...children) {
  const root = main();
  root.replaceChildren();
  append(root, children);
  const heading = root.querySelector('h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: false });
  }
}

let keepNext = false;

/** Shows a message in the live region; `kind` is info, success or error. */
export function notify(text, kind = 'info', { keep = false } = {}) {
  const region = document.getElementById('messages');
  region.replaceChildren();
  if (!text) return;
  region.append(h('p', { class: `message message-${kind}`, role: kind === 'error' ? 'alert' : undefined }, text));
  keepNext = keep;
}

/** Called on navigation: a message survives one page change when asked to (e.g. "Saved"). */
export function clearMessagesOnNavigate() {
  if (keepNext) keepNext = false;
  else notify('');
}

export function loading(label = 'Loading…') {
  return h('p', { class: 'loading', role: 'status' }, label);
}
