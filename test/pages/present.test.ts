import { describe, expect, it } from 'vitest';
import { inlineCode, linkify, prettyJson, shortUrl, urlsIn } from '../../src/partner/pages/present.js';

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

  it('JSON is indented for reading; other text is left as it is', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('<html>Bad gateway')).toBe('<html>Bad gateway');
    expect(prettyJson(null)).toBe('');
  });
});
