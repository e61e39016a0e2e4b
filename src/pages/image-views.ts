/**
 * Featured images on the pages: `<img>` with `srcset` and `sizes` from the media library's
 * variants (WordPress' sizes; the cropped thumbnail is left out of `srcset`, its shape differs),
 * `width` and `height` (no layout shift), the alt text kept with the image, lazy loading and
 * asynchronous decoding. Images given as a URL have no variants: their one URL is shown.
 *
 * @example
 *   imageTag(e.image, { sizes: '(max-width: 800px) 100vw, 800px', alt: 'fallback' })
 */
import { imageDetails } from '../domain/representations/image.js';
import { html, type SafeHtml } from './html.js';
import type { PublicImage } from '../domain/public-records.js';
import { safeUrl } from './view-helpers.js';

export interface ImageTagOptions {
  /** the `sizes` attribute: how wide the image is shown */
  sizes: string;
  /** the alt text when the image has none of its own ('' for a decorative image beside its title) */
  alt: string;
  /** the variant shown by browsers without `srcset` support (default: the full size) */
  prefer?: string;
  className?: string;
}

/** The image's alt text, if it has one (the media library's), else undefined. */
export function altOf(image: PublicImage): string | undefined {
  const alt = imageDetails(image)?.alt;
  return alt ? alt : undefined;
}

export function imageTag(image: PublicImage, options: ImageTagOptions): SafeHtml {
  const full = safeUrl(image.url);
  if (!full) return html``;
  const variants = Object.entries(image.sizes ?? {}).filter(([name, s]) => name !== 'thumbnail' && safeUrl(s.url) && s.width > 0);
  const srcset = variants.map(([, s]) => `${s.url} ${s.width}w`);
  if (srcset.length && typeof image.width === 'number') srcset.push(`${full} ${image.width}w`);
  const preferred = options.prefer ? image.sizes?.[options.prefer] : undefined;
  const src = preferred && safeUrl(preferred.url) ? preferred.url : full;
  const width = preferred ? preferred.width : image.width;
  const height = preferred ? preferred.height : image.height;
  return html`<img${options.className ? html` class="${options.className}"` : ''} src="${src}"${srcset.length ? html` srcset="${srcset.join(', ')}" sizes="${options.sizes}"` : ''}${typeof width === 'number' && width ? html` width="${width}"` : ''}${typeof height === 'number' && height ? html` height="${height}"` : ''} alt="${altOf(image) ?? options.alt}" loading="lazy" decoding="async">`;
}

/** A small square picture (the cropped thumbnail when there is one), decorative beside the event's title in a month grid. */
export function thumbnailTag(image: PublicImage): SafeHtml {
  const thumb = image.sizes?.thumbnail;
  const src = thumb && safeUrl(thumb.url) ? thumb.url : safeUrl(image.url);
  if (!src) return html``;
  return html`<img class="thumb" src="${src}" width="${thumb?.width ?? 150}" height="${thumb?.height ?? 150}" alt="" loading="lazy" decoding="async">`;
}
