/**
 * CSS from an uploaded SVG (a `style` attribute, a `<style>` element, or a
 * presentation attribute such as `fill="url(#g)"`) with every reference to
 * anything outside the document taken out: `url(…)` keeps only same-document
 * fragments (`url(#gradient)`) and any other becomes `none`; `@import` rules
 * go. CSS that could hide a reference from this reading — escapes (`u\72l(`),
 * `image-set()` and the other functions that take a bare string as a URL,
 * legacy script hooks (`expression()`, `behavior`, `-moz-binding`) — is
 * refused whole: null.
 */
export function withoutExternalReferences(css: string): string | null {
  if (UNREADABLE.test(css)) return null;
  const cleaned = css
    .replace(URL_FUNCTION, (match, _quote: string, target: string) =>
      target.trim().startsWith('#') ? match : 'none',
    )
    .replace(IMPORT_RULE, '');
  // Whatever is left that still names a URL was not in a form read above: refuse it.
  if (/@import|url\s*\(/i.test(cleaned.replace(URL_FUNCTION, ''))) return null;
  return cleaned;
}

/** `url(x)`, `url("x")`, `url('x')`, any case, spaces inside the parentheses. */
const URL_FUNCTION = /url\s*\(\s*(["']?)([^"')]*)\1\s*\)/gi;
/** `@import url(x) screen;`, `@import "x";` — up to the semicolon or the end. */
const IMPORT_RULE = /@import\b[^;]*;?/gi;
const UNREADABLE =
  /\\|image-set\s*\(|(?:^|[^-\w])image\s*\(|cross-fade\s*\(|element\s*\(|src\s*\(|expression\s*\(|behavior\s*:|-moz-binding|javascript:/i;
