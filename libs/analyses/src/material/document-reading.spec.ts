import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PDF_TEXT_PAGE_LIMIT, readPdf, readText } from './document-reading.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/reference-material/${name}`, import.meta.url));

/**
 * A valid PDF (Helvetica, each page's lines one under the other), written out with its
 * cross-reference table. PDF.js extracts only what lies on the page, so lines stay short.
 */
function pdfWithPages(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + 2 * i);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((lines, i) => {
    const stream = `BT /F1 10 Tf 12 TL 10 990 Td ${lines.map((line) => `(${line}) Tj T*`).join(' ')} ET`;
    objects[pageIds[i]!] =
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 1000] ' +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`;
    objects[pageIds[i]! + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = body.length;
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) {
    body += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  }
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

describe('readPdf', () => {
  it('reads the page count and the text of every page', async () => {
    expect(await readPdf(fixture('two-pages.pdf'))).toEqual({
      pages: 2,
      text_excerpt:
        'Page one: the lighthouse at dawn. Granite steps lead down to the water. ' +
        'Page two: a red door on the quay. The end of the reference document.',
    });
  });

  it(`counts every page but reads the text of the first ${PDF_TEXT_PAGE_LIMIT} only`, async () => {
    const texts = Array.from({ length: 60 }, (_, i) => [`Folio ${i + 1}.`]);
    const { pages, text_excerpt } = await readPdf(pdfWithPages(texts));
    expect(pages).toBe(60);
    expect(text_excerpt).toContain(`Folio ${PDF_TEXT_PAGE_LIMIT}.`);
    expect(text_excerpt).not.toContain(`Folio ${PDF_TEXT_PAGE_LIMIT + 1}.`);
  });

  it('stops reading once the excerpt is full', async () => {
    const page = Array.from({ length: 30 }, () => 'word '.repeat(8)); // 1,200 characters
    const { pages, text_excerpt } = await readPdf(pdfWithPages([page, page, page, page]));
    expect(pages).toBe(4);
    expect(text_excerpt).toHaveLength(2000);
  });

  it('throws for a corrupt or truncated PDF', async () => {
    await expect(readPdf(Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catal'))).rejects.toThrow();
    await expect(readPdf(fixture('two-pages.pdf').subarray(0, 400))).rejects.toThrow();
    await expect(readPdf(fixture('photo-gps.jpg'))).rejects.toThrow();
  });

  it('leaves the bytes it was given intact', async () => {
    const bytes = fixture('two-pages.pdf');
    const copy = Buffer.from(bytes);
    await readPdf(bytes);
    expect(bytes.equals(copy)).toBe(true);
  });
});

describe('readText', () => {
  it('is one page with its collapsed text', () => {
    expect(readText(fixture('notes.txt'))).toEqual({
      pages: 1,
      text_excerpt:
        'Field notes — café on the corner. The target is a tall structure near water. Second line.',
    });
  });
});
