/**
 * The featured image object (shapes.md §2.4). Images created from a URL have unknown dimensions,
 * which are `false` (COMPAT decision 9); `sizes` is then an empty object.
 *
 * @example toImageJson({ id: 4, url: 'http://x/a.png', extension: 'png', width: 1200, height: 800, … })
 *   // { url: 'http://x/a.png', id: 4, extension: 'png', width: 1200, height: 800, sizes: {} }
 */
import type { ImageRow } from '../../store/schema.js';

export interface ImageJson {
  url: string;
  id: number;
  extension: string;
  width: number | false;
  height: number | false;
  sizes: Record<string, unknown>;
}

export function toImageJson(image: ImageRow): ImageJson {
  return {
    url: image.url,
    id: Number(image.id),
    extension: image.extension,
    width: image.width ?? false,
    height: image.height ?? false,
    sizes: {},
  };
}
