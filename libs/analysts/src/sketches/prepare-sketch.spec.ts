import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { MAX_SKETCH_BYTES, prepareSketch } from './prepare-sketch.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/reference-material/${name}`, import.meta.url));
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A 1×1 transparent PNG as a data: URI, as a sketch may embed a raster. */
const PNG_DATA_URI = `data:image/png;base64,${fixture('plain.png').toString('base64')}`;

async function refusal(bytes: Uint8Array, index = 0): Promise<{ field: unknown; issue: unknown }> {
  try {
    await prepareSketch(bytes, index);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_REQUEST');
    return { field: (error as AppError).details.field, issue: (error as AppError).details.issue };
  }
  throw new Error('not refused');
}

async function cleanSvg(svg: string): Promise<string> {
  const sketch = await prepareSketch(utf8(svg), 0);
  expect(sketch.contentType).toBe('image/svg+xml');
  expect(sketch.sha256).toBe(sha256(sketch.bytes));
  return sketch.bytes.toString('utf8');
}

/** What no cleaned SVG may contain, whatever it came in as. */
function expectInert(svg: string): void {
  expect(svg).toMatch(/^<svg[\s>]/);
  expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
  expect(svg).not.toMatch(/<script|<foreignObject|<iframe|<!DOCTYPE|<!ENTITY|<\?|<!--/i);
  expect(svg).not.toMatch(/\son\w+\s*=/i);
  // Namespace declarations name URLs that are never fetched; nothing else may.
  const withoutNamespaces = svg.replace(/\sxmlns(?::\w+)?="[^"]*"/g, '');
  expect(withoutNamespaces).not.toMatch(/javascript:|https?:|\/\/evil|@import|evil\.example/i);
}

describe('prepareSketch: raster images', () => {
  it('keeps a PNG and a JPEG byte for byte, typed by their content', async () => {
    for (const [name, type] of [
      ['plain.png', 'image/png'],
      ['photo-gps.jpg', 'image/jpeg'],
    ] as const) {
      const bytes = fixture(name);
      const sketch = await prepareSketch(bytes, 0);
      expect(sketch.contentType).toBe(type);
      expect(sketch.bytes.equals(bytes)).toBe(true);
      expect(sketch.sha256).toBe(sha256(bytes));
    }
  });

  it('refuses a PNG cut short', async () => {
    expect(await refusal(fixture('plain.png').subarray(0, 20), 3)).toEqual({
      field: 'sketches[3]',
      issue: 'is not a readable PNG image (cut short or damaged)',
    });
  });
});

describe('prepareSketch: what is not a sketch', () => {
  it.each([
    ['an HTML page', utf8('<!DOCTYPE html><html><body><svg></svg></body></html>'), /text\/html/],
    ['a PDF', fixture('two-pages.pdf'), /application\/pdf/],
    ['plain text', utf8('a tower by a river'), /text\/plain/],
    ['an empty file', Buffer.alloc(0), /^is empty$/],
    ['an XML document that is not SVG', utf8('<?xml version="1.0"?><note>hi</note>'), /xml/],
  ])('refuses %s naming the sketch', async (_name, bytes, issue) => {
    const refused = await refusal(bytes, 2);
    expect(refused.field).toBe('sketches[2]');
    expect(refused.issue).toMatch(issue);
  });

  it('refuses a file over 5 MiB before reading it', async () => {
    const big = Buffer.concat([fixture('plain.png'), Buffer.alloc(MAX_SKETCH_BYTES)]);
    expect((await refusal(big, 1)).issue).toBe('is larger than 5 MiB');
  });

  it('refuses an SVG with nothing drawable left, or that is not one', async () => {
    expect(
      (
        await refusal(
          utf8('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        )
      ).issue,
    ).toMatch(/no drawing left/);
    expect((await refusal(utf8('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).issue).toMatch(
      /no drawing left/,
    );
  });
});

describe('prepareSketch: SVG sanitising', () => {
  it('keeps an ordinary drawing as it is drawn', async () => {
    const svg = await cleanSvg(`<?xml version="1.0" encoding="UTF-8"?>
<!-- drawn by hand -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100" viewBox="0 0 200 100">
  <defs>
    <linearGradient id="sky"><stop offset="0" stop-color="#8cf"/><stop offset="1" stop-color="#fff"/></linearGradient>
    <path id="wave" d="M0 80 Q 50 60 100 80 T 200 80"/>
    <filter id="soft"><feGaussianBlur stdDeviation="1"/></filter>
  </defs>
  <rect width="200" height="100" fill="url(#sky)" style="stroke: black; fill: url('#sky')"/>
  <use href="#wave" stroke="blue" fill="none"/>
  <use xlink:href="#wave" transform="translate(0 5)" filter="url(#soft)"/>
  <text x="10" y="20" font-family="serif">A tower &amp; a river</text>
  <image href="${PNG_DATA_URI}" x="150" y="5" width="32" height="16"/>
</svg>`);
    expectInert(svg);
    expect(svg).toContain('viewBox="0 0 200 100"');
    expect(svg).toContain('<linearGradient id="sky">');
    expect(svg).toContain('fill="url(#sky)"');
    expect(svg).toContain("fill: url('#sky')");
    expect(svg).toContain('<feGaussianBlur stdDeviation="1"');
    expect(svg).toMatch(/<use href="#wave"/);
    expect(svg).toMatch(/<use xlink:href="#wave"/);
    expect(svg).toContain('filter="url(#soft)"');
    expect(svg).toContain('A tower &amp; a river');
    expect(svg).toContain(`href="${PNG_DATA_URI}"`);
  });

  const DRAWING = '<circle cx="5" cy="5" r="4" fill="red"/>';
  const svgOf = (inner: string, attributes = '') =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attributes}>${inner}${DRAWING}</svg>`;

  it.each([
    [
      'a script',
      svgOf('<script>alert(document.cookie)</script><script href="https://evil.example/x.js"/>'),
    ],
    [
      'an onload handler',
      svgOf('<rect width="1" height="1" onclick="alert(1)"/>', ' onload="alert(1)"'),
    ],
    ['a javascript: link', svgOf('<a href="javascript:alert(1)"><rect width="1" height="1"/></a>')],
    ['an external link', svgOf('<a xlink:href="https://evil.example/"><text>click</text></a>')],
    [
      'xlink:href to http',
      svgOf('<image xlink:href="http://evil.example/track.png" width="1" height="1"/>'),
    ],
    [
      '<use> of an external file',
      svgOf(
        '<use href="http://evil.example/sprites.svg#x"/><use xlink:href="//evil.example/s.svg#y"/>',
      ),
    ],
    ['<use> of a data: SVG', svgOf('<use href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=#x"/>')],
    [
      'foreignObject with HTML',
      svgOf(
        '<foreignObject width="100" height="100"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example/"></iframe><img src="x" onerror="alert(1)"/></body></foreignObject>',
      ),
    ],
    [
      'style with url(http://…)',
      svgOf(
        '<rect width="1" height="1" style="fill: url(http://evil.example/p.svg#g); stroke: red"/>',
      ),
    ],
    [
      'a presentation attribute with an external url()',
      svgOf(
        '<rect width="1" height="1" fill="url(https://evil.example/g.svg#g)" mask="url( \'//evil.example/m.svg#m\' )"/>',
      ),
    ],
    [
      '<style> with url() and @import',
      svgOf(
        '<style>@import url("https://evil.example/a.css"); @import \'http://evil.example/b.css\'; rect { fill: url(https://evil.example/i.png); stroke: url(#ok) }</style>',
      ),
    ],
    [
      '<style> hiding a URL behind escapes',
      svgOf('<style>rect { background: u\\72l(https://evil.example/x) }</style>'),
    ],
    [
      'style with image-set()',
      svgOf(
        '<rect width="1" height="1" style="fill: image-set(\'https://evil.example/x.png\' 1x)"/>',
      ),
    ],
    [
      'entity expansion (billion laughs)',
      `<?xml version="1.0"?>
<!DOCTYPE svg [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
${svgOf('<text>&lol9;</text>')}`,
    ],
    [
      'an external entity (XXE)',
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${svgOf('<text>&xxe;</text>')}`,
    ],
    [
      '<image href="https://…">',
      svgOf('<image href="https://evil.example/beacon.png" width="10" height="10"/>'),
    ],
    [
      '<image> of an SVG data: URI',
      svgOf('<image href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" width="1" height="1"/>'),
    ],
    [
      'an animation setting href',
      svgOf(
        '<a href="#x"><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="href" values="https://evil.example/"/><rect width="1" height="1"/></a>',
      ),
    ],
    [
      'an xml-stylesheet instruction',
      `<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/s.css"?>${svgOf('<?xml-stylesheet href="https://evil.example/t.css"?>')}`,
    ],
    [
      'a feImage of an external file',
      svgOf('<filter id="f"><feImage href="https://evil.example/x.png"/></filter>'),
    ],
    ['xml:base', svgOf('<g xml:base="https://evil.example/"><use href="#c"/></g>')],
  ])('removes %s and keeps the drawing', async (_name, input) => {
    const svg = await cleanSvg(input);
    expectInert(svg);
    expect(svg).toContain('<circle cx="5" cy="5" r="4" fill="red"');
    expect(svg).not.toContain('lollol');
    expect(svg).not.toContain('root:');
  });

  it('keeps the CSS of a <style> once its external references are out', async () => {
    const svg = await cleanSvg(
      svgOf(
        '<style>@import url(https://evil.example/a.css); rect { fill: url(https://evil.example/i.png); stroke: url(#ok) }</style>',
      ),
    );
    expect(svg).toContain('<style>');
    expect(svg).toContain('fill: none');
    expect(svg).toContain('stroke: url(#ok)');
  });

  it('gives a document an SVG parser reads back', async () => {
    const { JSDOM } = await import('jsdom');
    const svg = await cleanSvg(svgOf('<text>&lt;tower&gt;</text>'));
    const parsed = new JSDOM(svg, { contentType: 'image/svg+xml' }) as unknown as {
      window: {
        document: { documentElement: { localName: string; childNodes: { length: number } } };
      };
    };
    expect(parsed.window.document.documentElement.localName).toBe('svg');
    expect(parsed.window.document.documentElement.childNodes.length).toBe(2);
  });
});
