import { describe, expect, it } from 'vitest';
import { inlineCode, linkify, mailPreviewHtml, prettyJson, shortUrl, urlsIn } from '../../src/partner/pages/present.js';

describe('what the partner pages show of raw data', () => {
  it('code in backticks becomes <code>, after everything else is escaped', () => {
    expect(inlineCode('What does `typeof null` evaluate to?')).toBe('What does <code>typeof null</code> evaluate to?');
    expect(inlineCode('`<script>alert(1)</script>` & "x"')).toBe('<code>&lt;script&gt;alert(1)&lt;/script&gt;</code> &amp; &quot;x&quot;');
    expect(inlineCode('a lone ` stays')).toBe('a lone ` stays');
  });

  it('a URL reads short, its query values cut; a text’s URLs become links, the rest escaped', () => {
    expect(shortUrl('https://partner.example/results?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig')).toBe('…/results?token=eyJhbGci…');
    expect(shortUrl('https://partner.example/callbacks/reports/1/cancel')).toBe('…/callbacks/reports/1/cancel');
    expect(linkify('Go <here>: https://p.example/take?token=a.b.c\nthanks')).toBe(
      'Go &lt;here&gt;: <a href="https://p.example/take?token=a.b.c">https://p.example/take?token=a.b.c</a>\nthanks',
    );
    expect(linkify('x "https://p.example/?a=1&b=2" y')).toBe('x &quot;<a href="https://p.example/?a=1&amp;b=2">https://p.example/?a=1&amp;b=2</a>&quot; y');
    expect(urlsIn('a http://x.test/1 b http://x.test/1 c https://y.test')).toEqual(['http://x.test/1', 'https://y.test']);
  });

  it('an e-mail’s HTML in the preview: its links open in a new tab, the candidate link through the dashboard, attributes escaped', () => {
    const via = (url: string) => (url.includes('/take?') ? 'https://p.example/admin/mail/1/open' : url);
    expect(mailPreviewHtml('<!doctype html>\n<html lang="en">\n<body><a href="https://p.example/take?token=a.b&amp;x=&quot;">Go</a> <a class="x" href="https://docs.example/?a=1&amp;b=2">Docs</a></body></html>', via)).toBe(
      '<!doctype html>\n<html lang="en"><base target="_blank">\n<body><a href="https://p.example/admin/mail/1/open">Go</a> <a class="x" href="https://docs.example/?a=1&amp;b=2">Docs</a></body></html>',
    );
    expect(mailPreviewHtml('<html><head><title>t</title></head><body></body></html>', via)).toBe('<html><head><base target="_blank"><title>t</title></head><body></body></html>');
    expect(mailPreviewHtml('<p>Hello</p>', via)).toBe('<base target="_blank"><p>Hello</p>');
    expect(linkify('Go: https://p.example/take?token=a.b', via)).toBe('Go: <a href="https://p.example/admin/mail/1/open">https://p.example/take?token=a.b</a>');
  });

  it('JSON is indented for reading; other text is left as it is', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('<html>Bad gateway')).toBe('<html>Bad gateway');
    expect(prettyJson(null)).toBe('');
  });
});
