/**
 * Markup annotations whose appearances draw no text (highlights, an ink stroke, a square), as readers add them
 * to a page: pdf-fixtures.ts puts them in markup-annotations.pdf, pdf-annotate.ts in a copy of a bench file.
 */
import type { PDFPage } from "mupdf";

/**
 * A highlight over each band `[x0, y, x1]` (12 points high, in `color` when given), an ink stroke, and a square at
 * `square` ([x0, y0, x1, y1]).
 */
export function addMarkup(page: PDFPage, bands: [number, number, number][], square: [number, number, number, number], color?: [number, number, number]): void {
  for (const [x0, y, x1] of bands) {
    const highlight = page.createAnnotation("Highlight");
    highlight.setQuadPoints([[x0, y, x1, y, x0, y + 12, x1, y + 12]]);
    if (color) highlight.setColor(color);
    highlight.update();
  }
  const ink = page.createAnnotation("Ink");
  ink.setInkList([[[100, 600], [200, 650], [300, 600]]]);
  ink.update();
  const box = page.createAnnotation("Square");
  box.setRect(square);
  box.update();
}
