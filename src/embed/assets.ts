/**
 * The built `<events-calendar>` component (`embed/build.mjs` writes it to dist/embed/): its bytes,
 * the hashed file name and the Subresource Integrity hash, read from the manifest and read again
 * when the manifest changes (a rebuild while the service runs). Missing when the component was
 * never built: the asset routes answer 503 and the snippet page leaves the component out.
 *
 * @example const asset = createAssetStore().current(); // { file: 'events-calendar.1a2b3c4d5e6f.js', … }
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ComponentAsset {
  /** `events-calendar.<hash>.js` */
  file: string;
  hash: string;
  /** `sha384-…`, the SRI hash of `code` */
  integrity: string;
  code: Buffer;
}

/** dist/embed/ of the package: this module lives in src/embed/ or dist/embed/, two levels below the root. */
export const DIST_EMBED = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'embed');

export interface AssetStore {
  current(): ComponentAsset | undefined;
}

export function createAssetStore(dir: string = DIST_EMBED): AssetStore {
  let seen = -1;
  let asset: ComponentAsset | undefined;
  return {
    current() {
      const manifest = join(dir, 'manifest.json');
      const st = statSync(manifest, { throwIfNoEntry: false });
      if (!st) return (asset = undefined);
      if (st.mtimeMs !== seen) {
        try {
          const m = JSON.parse(readFileSync(manifest, 'utf8')) as { file: string; hash: string; integrity: string };
          asset = { file: m.file, hash: m.hash, integrity: m.integrity, code: readFileSync(join(dir, m.file)) };
          seen = st.mtimeMs;
        } catch {
          asset = undefined;
        }
      }
      return asset;
    },
  };
}
