// The e-mail preview on the dashboard (/admin/mail/{id}) as tall as the e-mail: a frame of fixed
// height cut the e-mail's last lines on a phone, where it wraps into more of them. The frame is
// sandboxed without scripts (the e-mail runs nothing) but same-origin, so this page can read how
// tall its document is — again when the width changes (a phone turned). Without this script the
// frame keeps its minimum height and scrolls. A same-origin file: the CSP (script-src 'self') stays.
for (const frame of document.querySelectorAll('iframe.mail-html')) {
  const fit = () => {
    const root = frame.contentDocument && frame.contentDocument.documentElement;
    if (!root) return;
    const border = frame.offsetHeight - frame.clientHeight;
    frame.style.height = `${Math.ceil(root.getBoundingClientRect().height) + border}px`;
  };
  frame.addEventListener('load', fit);
  if (frame.contentDocument && frame.contentDocument.readyState === 'complete') fit();
  new ResizeObserver(fit).observe(frame.parentElement);
}
