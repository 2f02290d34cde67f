import { describe, expect, it } from 'vitest';
import { escapeXml, renderSketchSvg } from './sketch-svg.js';

/** Minimal well-formedness check: every tag closes in order, attributes are quoted. */
function assertBalanced(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>/g;
  let consumed = 0;
  for (const match of svg.matchAll(tag)) {
    // Text between tags must not contain raw markup characters.
    expect(svg.slice(consumed, match.index)).not.toMatch(/[<>]/);
    consumed = match.index + match[0].length;
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name!);
  }
  expect(svg.slice(consumed).trim()).toBe('');
  expect(stack).toEqual([]);
}

describe('renderSketchSvg', () => {
  const seed = 'a'.repeat(64);

  it('is a well-formed, self-contained SVG', () => {
    for (let index = 0; index < 50; index++) {
      const svg = renderSketchSvg(`${seed}${index}`, index % 3);
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
      expect(svg).toContain('width="256" height="256"');
      expect(svg).not.toMatch(/<script|href=|url\(|\son\w+=/i);
      assertBalanced(svg);
    }
  });

  it('is deterministic and varies with seed and index', () => {
    expect(renderSketchSvg(seed, 0)).toBe(renderSketchSvg(seed, 0));
    expect(renderSketchSvg(seed, 1)).not.toBe(renderSketchSvg(seed, 0));
    expect(renderSketchSvg('b'.repeat(64), 0)).not.toBe(renderSketchSvg(seed, 0));
  });

  it('escapes hostile seeds into the title', () => {
    const svg = renderSketchSvg('<script>&"\u0001', 0);
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('\u0001');
    assertBalanced(svg);
    expect(escapeXml(`<a href='x'>&</a>`)).toBe('&lt;a href=&apos;x&apos;&gt;&amp;&lt;/a&gt;');
  });

  it('rejects a bad index', () => {
    expect(() => renderSketchSvg(seed, -1)).toThrow(RangeError);
    expect(() => renderSketchSvg(seed, 1.5)).toThrow(RangeError);
  });
});
