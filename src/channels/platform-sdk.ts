import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Platform SDKs the package does not carry. The Feishu, Slack and Discord SDKs (with their HTTP and protobuf
 * stacks) were ~50 MB of a 183 MB production install that most owners never load, so a clone has them as
 * development dependencies and an installed package fetches them on demand: `wren channels add NAME` installs
 * the pinned versions into `<home>/extensions`, where adapters find them at start.
 */
export const EXTENSIONS_FOLDER = 'extensions';

/** `<home>/extensions`: an npm prefix of its own (package.json + node_modules), owned by `wren channels add`. */
export function extensionsDir(home: string): string {
  return join(home, EXTENSIONS_FOLDER);
}

/** Loads one npm package an adapter needs, by name (its CommonJS entry). Throws {@link SdkMissingError}. */
export type SdkLoader = <T>(pkg: string) => T;

/** A platform SDK that neither Wren's own dependencies nor `<home>/extensions` hold. */
export class SdkMissingError extends Error {
  override readonly name = 'SdkMissingError';

  constructor(
    readonly platform: string,
    readonly pkg: string,
  ) {
    super(
      `the ${platform} channel needs the npm package ${pkg}, which this install does not include: run \`wren channels add ${platform}\`, then restart Wren`,
    );
  }
}

/** Where a package resolves from: Wren's own dependencies, `<home>/extensions`, or nowhere. */
export type SdkLocation = 'bundled' | 'installed' | 'missing';

const own = createRequire(import.meta.url);

/** True when `error` says `pkg` itself is absent (not one of its own dependencies, which is a broken install). */
function isAbsent(error: unknown, pkg: string): boolean {
  return (
    (error as NodeJS.ErrnoException | undefined)?.code === 'MODULE_NOT_FOUND' &&
    String((error as Error).message).includes(`'${pkg}'`)
  );
}

function fromExtensions(dir: string) {
  return createRequire(join(dir, 'package.json'));
}

/**
 * The loader adapters of `platform` use: Wren's own dependencies first (a clone, where they are development
 * dependencies), then the extensions folder `dir`. An SDK that is present but fails to load (a dependency of
 * its own missing) throws that error, not "missing". Synchronous: require's cache makes a second load free.
 */
export function sdkLoader(platform: string, dir?: string): SdkLoader {
  return <T>(pkg: string): T => {
    try {
      return own(pkg) as T;
    } catch (error) {
      if (!isAbsent(error, pkg)) throw error;
    }
    if (dir !== undefined) {
      try {
        return fromExtensions(dir)(pkg) as T;
      } catch (error) {
        if (!isAbsent(error, pkg)) throw error;
      }
    }
    throw new SdkMissingError(platform, pkg);
  };
}

/** Imports one npm package an adapter needs, by name (ESM-only SDKs). Rejects with {@link SdkMissingError}. */
export type SdkImporter = <T>(pkg: string) => Promise<T>;

/**
 * The importer adapters of `platform` use for ESM-only SDKs (matrix-js-sdk): the package is found as
 * sdkLoader finds it — Wren's own dependencies first, then the extensions folder `dir` — and its entry file
 * is imported, so an SDK that `wren channels add` put in `<home>/extensions` loads as well as a bundled one.
 */
export function sdkImporter(platform: string, dir?: string): SdkImporter {
  return async <T>(pkg: string): Promise<T> => {
    const resolvers = [own.resolve, ...(dir !== undefined ? [fromExtensions(dir).resolve] : [])];
    for (const resolve of resolvers) {
      let entry: string;
      try {
        entry = resolve(pkg);
      } catch (error) {
        if (isAbsent(error, pkg)) continue;
        throw error;
      }
      return (await import(pathToFileURL(entry).href)) as T;
    }
    throw new SdkMissingError(platform, pkg);
  };
}

/** Where `pkg` would load from, without loading it. */
export function sdkLocation(pkg: string, dir: string): SdkLocation {
  const resolves = (resolve: NodeJS.RequireResolve) => {
    try {
      resolve(pkg);
      return true;
    } catch {
      return false;
    }
  };
  if (resolves(own.resolve)) return 'bundled';
  return resolves(fromExtensions(dir).resolve) ? 'installed' : 'missing';
}

/** The packages of one platform's SDK that load from neither place (empty: ready, or built in). */
export function missingSdkPackages(sdk: Readonly<Record<string, string>> | undefined, dir: string): string[] {
  return Object.keys(sdk ?? {}).filter((pkg) => sdkLocation(pkg, dir) === 'missing');
}
