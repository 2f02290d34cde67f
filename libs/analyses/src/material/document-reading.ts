import { getResolvedPDFJS } from 'unpdf';
import { EXCERPT_LENGTH, textExcerpt } from './text-excerpt.js';

/** Pages of a PDF whose text is read at most, whatever its length: parsing stays bounded. */
export const PDF_TEXT_PAGE_LIMIT = 50;

export interface DocumentFacts {
  pages: number;
  text_excerpt: string;
}

/**
 * Page count and the start of the text of a PDF, with PDF.js 6 (the build
 * unpdf ships for servers: no canvas, no worker thread, and no `eval` of font
 * programs, which PDF.js no longer does at all). Text is read page by page
 * until the excerpt is full or PDF_TEXT_PAGE_LIMIT pages are read. Throws
 * when the PDF cannot be parsed (corrupt, encrypted).
 */
export async function readPdf(bytes: Uint8Array): Promise<DocumentFacts> {
  const { getDocument } = await getResolvedPDFJS();
  const task = getDocument({
    // A copy: PDF.js may take ownership of (detach) the buffer it is given.
    data: new Uint8Array(bytes),
    // Nothing printed; no fonts loaded or installed: only the text is wanted.
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    enableXfa: false,
  });
  try {
    const document = await task.promise;
    const pageTexts: string[] = [];
    const lastPage = Math.min(document.numPages, PDF_TEXT_PAGE_LIMIT);
    for (let number = 1; number <= lastPage; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pageTexts.push(
        content.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
          .join(''),
      );
      page.cleanup();
      if (Array.from(textExcerpt(pageTexts.join('\n'))).length === EXCERPT_LENGTH) break;
    }
    return { pages: document.numPages, text_excerpt: textExcerpt(pageTexts.join('\n')) };
  } finally {
    // Also when the document never opened: the loading task holds PDF.js's in-thread worker.
    await task.destroy();
  }
}

/** Plain text (already known to be UTF-8): one page, and its excerpt. */
export function readText(bytes: Uint8Array): DocumentFacts {
  return { pages: 1, text_excerpt: textExcerpt(new TextDecoder('utf-8').decode(bytes)) };
}
