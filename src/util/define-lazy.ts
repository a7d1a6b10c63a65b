/** Defines `name` on `target` as a getter that builds its value on first use and keeps it. */
export function defineLazy<T extends object, K extends keyof T>(target: T, name: K, build: () => T[K]): void {
  let value: T[K] | undefined;
  Object.defineProperty(target, name, {
    enumerable: true,
    get: () => {
      value ??= build();
      return value;
    },
  });
}
