import { parse, View } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { compile } from 'vega-lite';

/** vega-lite -> vega -> SVG text, in Node with no browser and no canvas (renderer 'none'). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
