import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, stripInvisible } from './html-to-markdown.js';

describe('stripInvisible', () => {
  it('drops scripts, styles, SVG, templates and comments in any case, keeping the rest', () => {
    const html =
      '<p>İstanbul a</p><SCRIPT type="x">if (a < b) {}</Script ><p>b</p><style>p{}</style><!-- c --><svg><g/></svg><p>d</p><template><p>t</p></template>';
    expect(stripInvisible(html)).toBe('<p>İstanbul a</p><p>b</p><p>d</p>');
  });

  it('cuts at an unclosed script or comment and stays linear on hostile markup', () => {
    expect(stripInvisible('<p>a</p><script>never closed <p>b</p>')).toBe('<p>a</p>');
    expect(stripInvisible('<p>a</p><!-- open')).toBe('<p>a</p>');
    const hostile = '<script>'.repeat(200_000);
    expect(stripInvisible(`<p>x</p>${hostile}`)).toBe('<p>x</p>');
  });
});

describe('htmlToMarkdown', () => {
  it('converts a page without an article body, keeping its title and absolute links', () => {
    const page = htmlToMarkdown(
      '<html><head><title>T</title></head><body><a href="/x">short</a></body></html>',
      'https://e.example/a/',
    );
    expect(page).toMatchObject({ title: 'T', markdown: '[short](https://e.example/x)' });
  });
});
