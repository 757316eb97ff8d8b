// A candidate's page kept current without a reload while a report on it is in flight — on the
// hiring platform, Greenhouse and Ashby alike: the partner's first answer (its links, "Cancel this
// test"), the candidate starting, the result. The page marks its live part with
// data-live="<address>"; that address answers { final, html }: the part rendered again, one or more
// elements, each swapped in for the page's element of the same id when it changed. Once `final`
// (every report has its result, was cancelled or could not be sent) the asking stops. Forms
// outside the part keep what the recruiter typed; an open <details id> inside it stays open.
// Asked every second for the first minute, then every 5 s; not while the tab is hidden. A
// same-origin file: the page's Content-Security-Policy (script-src 'self') stays as it is.
const FAST_MS = 1000;
const SLOW_MS = 5000;
const FAST_FOR_MS = 60 * 1000;
/** A page left open longer than this stops asking: a reload starts again. */
const GIVE_UP_MS = 4 * 60 * 60 * 1000;

const live = document.querySelector('[data-live]');
const address = live && live.getAttribute('data-live');
const opened = Date.now();
let shown = '';

function swapIn(html) {
  const next = document.createElement('template');
  next.innerHTML = html;
  for (const element of [...next.content.children]) {
    const current = element.id && document.getElementById(element.id);
    if (!current) continue;
    for (const open of current.querySelectorAll('details[open][id]')) element.querySelector(`details#${CSS.escape(open.id)}`)?.setAttribute('open', '');
    current.replaceWith(element);
  }
}

function later() {
  const waited = Date.now() - opened;
  if (waited > GIVE_UP_MS) return;
  setTimeout(ask, waited < FAST_FOR_MS ? FAST_MS : SLOW_MS);
}

async function ask() {
  if (document.hidden) {
    document.addEventListener('visibilitychange', ask, { once: true });
    return;
  }
  let part;
  try {
    const res = await fetch(address, { headers: { accept: 'application/json' }, cache: 'no-store' });
    // The candidate or the page is gone (deleted, the mock restarted afresh): nothing more to show.
    if (res.status === 404) return;
    if (res.ok) part = await res.json();
  } catch {
    // The mock is restarting: ask again at the next tick.
  }
  if (part && typeof part.html === 'string') {
    if (part.html !== shown) swapIn(part.html);
    shown = part.html;
    if (part.final) return;
  }
  later();
}

if (address) later();
