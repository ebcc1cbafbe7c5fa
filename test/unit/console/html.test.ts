import { html } from '../../../src/console/pages/html';

describe('the console template tag', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const hostile = `"><script>alert('x')</script>&`;
    expect(html`<p title="${hostile}">${hostile}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it('keeps markup made by the tag itself and escapes each item of a list', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    const list = html`<ul>
      ${items}
    </ul>`;
    const nothing = html`${undefined}${null}${false}${0}`;
    // Prettier lays out html`` templates as HTML: compare without the whitespace it adds.
    expect(list.value.replace(/\s+/g, '')).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>');
    expect(nothing.value).toBe('0');
  });
});
