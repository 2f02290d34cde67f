import { useEffect, useRef, useState } from 'react';
import { parse, View } from 'vega';
import { expressionInterpreter } from 'vega-interpreter';
import { compile, type Config, type TopLevelSpec } from 'vega-lite';
import type { SpecFor } from './spec';

// The one module that holds Vega: loaded with the first chart a page draws (chart.tsx imports
// it lazily), never with the dashboard's first load.

const FONT = 'system-ui, sans-serif';

/**
 * The dashboard's look, and no ARIA of Vega's own: each chart is one image
 * named by its figure (role="img" and its text alternative), the table
 * beside it holding the figures one by one.
 */
const CONFIG: Config = {
  // Guides read `aria`, marks `mark.aria`: both off.
  aria: false,
  mark: { aria: false },
  font: FONT,
  background: 'transparent',
  view: { stroke: null },
  axis: { labelFontSize: 12, titleFontSize: 12, labelColor: '#1a1a1a', titleColor: '#1a1a1a' },
  legend: { labelFontSize: 12, titleFontSize: 12, labelColor: '#1a1a1a', titleColor: '#1a1a1a' },
  header: { labelFontSize: 12, labelColor: '#1a1a1a' },
};

/**
 * A Vega-Lite chart drawn as SVG at the width of its box, drawn again when
 * the box changes width. Vega compiles expressions with `new Function`
 * unless told otherwise, which the dashboard's CSP (no 'unsafe-eval')
 * refuses: the parser keeps each expression's syntax tree (`ast: true`) and
 * vega-interpreter evaluates it.
 */
export default function VegaView({ spec, summary }: { spec: SpecFor; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [state, setState] = useState<'drawing' | 'drawn' | 'failed'>('drawing');
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const element = box.current!;
    const measure = () => setWidth(Math.floor(element.clientWidth));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The spec as text: the chart is drawn again only when what it shows changes.
  const text = width > 0 ? JSON.stringify(spec(width)) : null;
  useEffect(() => {
    if (!text) return;
    const element = box.current!;
    // A drawing replaced (the width changed) or unmounted no longer reports.
    let current = true;
    const fail = (error: unknown) => {
      if (!current) return;
      setFailure(error instanceof Error ? error.message : String(error));
      setState('failed');
    };
    setState('drawing');
    let view: View | null = null;
    try {
      const compiled = compile(JSON.parse(text) as TopLevelSpec, { config: CONFIG }).spec;
      element.replaceChildren();
      view = new View(parse(compiled, undefined, { ast: true }), {
        renderer: 'svg',
        container: element,
        expr: expressionInterpreter,
        hover: false,
      });
      // Vega names its container a "Vega visualization" document; the image around it
      // carries the chart's name instead.
      for (const name of ['role', 'aria-roledescription', 'aria-label']) {
        element.removeAttribute(name);
      }
      view.runAsync().then(() => current && setState('drawn'), fail);
    } catch (error) {
      fail(error);
    }
    return () => {
      current = false;
      view?.finalize();
    };
  }, [text]);

  return (
    <>
      <div className="chart-view" role="img" aria-label={summary} data-chart-state={state}>
        <div ref={box} />
      </div>
      {state === 'failed' && (
        <p className="muted" data-testid="chart-failure">
          The chart could not be drawn ({failure}); the table holds its figures.
        </p>
      )}
    </>
  );
}
