import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';
import { JSDOM, type JsdomWindow } from 'jsdom';
import { withoutExternalReferences } from './css-references.js';

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
/** Raster images an `<image>` may embed as a data: URI; nothing else of data: survives. */
const RASTER_DATA_URI = /^data:image\/(?:png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;
const REFERENCE_ATTRIBUTES = new Set(['href', 'xlink:href']);
const EMBEDDING_ELEMENTS = new Set(['image', 'feimage']);

/**
 * Animation can set any attribute after sanitising (`<set attributeName="href"
 * to="https://…">`), and the others load or run things; none is drawing.
 */
const FORBIDDEN_ELEMENTS = [
  'script',
  'foreignObject',
  'foreignobject',
  'iframe',
  'animate',
  'animateColor',
  'animateMotion',
  'animateTransform',
  'set',
  'mpath',
  'discard',
  'handler',
  'listener',
  'cursor',
  'color-profile',
  'font-face-uri',
  'a',
];

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  // Same-document <use href="#shape"> is ordinary drawing; its href is held to a fragment below.
  ADD_TAGS: ['use'],
  // SVG 2 writes `href` without the xlink namespace; held to the same rules as xlink:href.
  ADD_ATTR: ['href'],
  FORBID_TAGS: FORBIDDEN_ELEMENTS,
  FORBID_ATTR: ['xml:base', 'xlink:base'],
  RETURN_DOM_FRAGMENT: true,
};

interface SanitisedNode {
  nodeType: number;
  nodeName: string;
  namespaceURI: string | null;
  childNodes: ArrayLike<SanitisedNode>;
  textContent: string | null;
  parentNode: { removeChild(node: SanitisedNode): void } | null;
}

/**
 * One jsdom window and one DOMPurify for the process: building a window costs
 * tens of milliseconds and DOMPurify keeps its configuration and hooks.
 * Sanitising is synchronous, so no two calls ever share it at once.
 */
let purifier: { purify: DOMPurify; window: JsdomWindow } | null = null;

function sanitiser(): { purify: DOMPurify; window: JsdomWindow } {
  if (purifier) return purifier;
  const { window } = new JSDOM('<!DOCTYPE html><html><head></head><body></body></html>');
  const purify = createDOMPurify(window as never);
  purify.addHook('uponSanitizeElement', (node, data) => {
    // CSS in <style>: external references out, or the whole element when it cannot be read.
    if (data.tagName === 'style') {
      const css = withoutExternalReferences(node.textContent ?? '');
      if (css === null) node.parentNode?.removeChild(node);
      else node.textContent = css;
    }
  });
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const name = data.attrName.toLowerCase();
    const value = data.attrValue.trim();
    if (REFERENCE_ATTRIBUTES.has(name)) {
      const element = node.nodeName.toLowerCase();
      const embedsRaster = EMBEDDING_ELEMENTS.has(element) && RASTER_DATA_URI.test(value);
      if (!value.startsWith('#') && !embedsRaster) data.keepAttr = false;
      return;
    }
    // style="…", fill="url(…)", filter, clip-path, mask, marker-*: any value naming a URL.
    if (name === 'style' || /url\s*\(|@import|\\/i.test(value)) {
      const css = withoutExternalReferences(data.attrValue);
      if (css === null) data.keepAttr = false;
      else data.attrValue = css;
    }
  });
  purifier = { purify, window };
  return purifier;
}

/**
 * An uploaded SVG made safe to show anywhere, as the text of a standalone SVG
 * document, or null when no drawing is left. Parsed as browsers parse inline
 * SVG (an HTML parser: a DOCTYPE, its entities and any processing instruction
 * are never read, so neither XXE nor entity expansion can happen), then
 * cleaned by DOMPurify's SVG profile with these rules on top: no script, event
 * handler, foreignObject or animation; `href`/`xlink:href` only to a fragment
 * of the same document (`#shape`), except raster data: images (PNG, JPEG,
 * GIF, WebP) in `<image>`; CSS (`style` attributes, `<style>`, presentation
 * attributes) without `@import` and with `url()` only to `#fragments`.
 */
export function sanitiseSvg(text: string): string | null {
  const { purify, window } = sanitiser();
  const fragment = purify.sanitize(text, CONFIG) as unknown as SanitisedNode;
  const svg = Array.from(fragment.childNodes).find(
    (node) =>
      node.nodeType === ELEMENT &&
      node.namespaceURI === SVG_NAMESPACE &&
      node.nodeName.toLowerCase() === 'svg',
  );
  if (!svg) return null;
  removeComments(svg);
  if (!Array.from(svg.childNodes).some((node) => node.nodeType === ELEMENT)) return null;
  return new window.XMLSerializer().serializeToString(svg);
}

const ELEMENT = 1;
const COMMENT = 8;
const PROCESSING_INSTRUCTION = 7;

/** Comments carry nothing of the drawing, and a bogus comment is where a `<?…?>` ends up. */
function removeComments(node: SanitisedNode): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === COMMENT || child.nodeType === PROCESSING_INSTRUCTION) {
      child.parentNode?.removeChild(child);
    } else if (child.nodeType === ELEMENT) {
      removeComments(child);
    }
  }
}
