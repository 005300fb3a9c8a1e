import type { TopLevelSpec } from 'vega-lite';

/**
 * vega-lite -> vega -> SVG text, in Node with no browser and no canvas (renderer 'none'). vega and
 * vega-lite are loaded here, at the first plot: they are about 300 modules that every command
 * importing the run steps would otherwise load at start-up (about 0.5 s each time).
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [{ parse, View }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
