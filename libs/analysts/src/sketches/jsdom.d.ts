/**
 * The little of jsdom the SVG sanitiser uses. jsdom ships no type
 * declarations, and @types/jsdom would bring the DOM library into a project
 * that compiles without it, so the window is typed here only as far as it is
 * used: DOMPurify takes it as its window, and XMLSerializer writes the result.
 */
declare module 'jsdom' {
  export interface JsdomWindow {
    XMLSerializer: new () => { serializeToString(node: unknown): string };
    close(): void;
  }

  export class JSDOM {
    constructor(html?: string, options?: Record<string, unknown>);
    readonly window: JsdomWindow;
  }
}
