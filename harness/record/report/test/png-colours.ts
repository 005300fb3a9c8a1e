import type { PNG } from 'pngjs';

const rgbOf = (hex: string): number[] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

function isNear(png: PNG, offset: number, want: number[], tolerance: number): boolean {
  return want.every((v, k) => Math.abs((png.data[offset + k] ?? 0) - v) <= tolerance);
}

/** Pixels within `tolerance` of `hex` on every channel. */
export function countNear(png: PNG, hex: string, tolerance = 12): number {
  const want = rgbOf(hex);
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) if (isNear(png, i, want, tolerance)) n += 1;
  return n;
}

/**
 * Separate vertical stripes of `hex` between columns `fromX` and `toX`: runs of adjacent columns that
 * hold at least `minPixels` of it. One per bar, where bars stand apart.
 */
export function countStripes(
  png: PNG,
  hex: string,
  options: { fromX: number; toX: number; minPixels?: number; tolerance?: number },
): number {
  const want = rgbOf(hex);
  let stripes = 0;
  let inStripe = false;
  for (let x = options.fromX; x < Math.min(options.toX, png.width); x += 1) {
    let n = 0;
    for (let y = 0; y < png.height; y += 1)
      if (isNear(png, (y * png.width + x) * 4, want, options.tolerance ?? 12)) n += 1;
    const hit = n >= (options.minPixels ?? 3);
    if (hit && !inStripe) stripes += 1;
    inStripe = hit;
  }
  return stripes;
}

/** What a colour at `opacity` over white looks like. */
export const overWhite = (hex: string, opacity: number): string =>
  `#${rgbOf(hex)
    .map((v) =>
      Math.round(255 - (255 - v) * opacity)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
