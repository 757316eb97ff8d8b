// The candidate page's reports, kept current without a reload: right after Send, the partner's
// first update (its links, "Cancel this test") arrives a moment later. While a report waits for it
// (#reports[data-waiting]), the page is fetched again every second and its reports part swapped in;
// forms elsewhere on the page keep what the recruiter typed. A same-origin file: the page's
// Content-Security-Policy (script-src 'self') stays as it is.
const POLL_MS = 1000;
const MAX_POLLS = 120;

async function refresh(polls) {
  const current = document.getElementById('reports');
  if (!current || !current.hasAttribute('data-waiting') || polls >= MAX_POLLS) return;
  try {
    const res = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
    if (res.ok) {
      const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('reports');
      if (next) current.replaceWith(next);
    }
  } catch {
    // The mock is restarting or gone: try again at the next tick.
  }
  setTimeout(() => refresh(polls + 1), POLL_MS);
}

setTimeout(() => refresh(0), POLL_MS);
